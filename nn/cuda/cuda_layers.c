/* nn/cuda/cuda_layers.c -- one layer on the device for the plan under way (see
 * cuda_internal.h): convolutions by the implicit-GEMM kernel, cuDNN or cuBLAS with the fused
 * epilogue, float matmuls by cuBLAS, and the layout kernels. cuDNN's algorithm for a shape is
 * searched on the first run of a plan (the search runs convolutions, which a graph capture
 * cannot hold) and kept in the plan. */
#include <stdio.h>
#include <stdlib.h>

#include "nn/cuda/cuda_internal.h"
#include "nn/cuda/kernels/kernels.h"

bool nn_cuda_fail(cuda_ctx *C, const char *call, const char *why, const char *file, int line)
{
    snprintf(C->err, sizeof C->err, "%s failed: %s (%s:%d, CUDA device %d)", call, why, file,
             line, C->W->opt.device);
    return false;
}

int nn_cuda_prof_begin(cuda_ctx *C, int kind)
{
    if (!C->profile || C->prof_failed)
        return -1;
    if (C->num_prof == C->cap_prof) {
        int cap = C->cap_prof ? 2 * C->cap_prof : 256;
        cudaEvent_t *ev = realloc(C->prof_ev, sizeof *ev * 2 * (size_t)cap);
        if (ev)
            C->prof_ev = ev;
        int *kinds = ev ? realloc(C->prof_kind, sizeof *kinds * (size_t)cap) : NULL;
        if (kinds)
            C->prof_kind = kinds;
        for (int i = 2 * C->cap_prof; kinds && i < 2 * cap; i++)
            if (cudaEventCreate(&C->prof_ev[i]) != cudaSuccess) {
                kinds = NULL;
                C->cap_prof = i / 2;
            }
        if (!kinds) {
            cudaGetLastError();
            C->prof_failed = true;
            return -1;
        }
        C->cap_prof = cap;
    }
    C->prof_kind[C->num_prof] = kind;
    cudaEventRecord(C->prof_ev[2 * C->num_prof], C->stream);
    return C->num_prof++;
}

void nn_cuda_prof_end(cuda_ctx *C, int span)
{
    if (span >= 0 && !C->prof_failed)
        cudaEventRecord(C->prof_ev[2 * span + 1], C->stream);
}

static bool epilogue_is_noop(const nn_cuda_epilogue *e)
{
    return !e->scale && !e->bias && !e->bias_nc && !e->residual && e->act == NN_ACT_IDENTITY &&
           !e->mask && !e->out2;
}

static void algo_destroy(cuda_algo *a)
{
    if (a->xd)
        cudnnDestroyTensorDescriptor(a->xd);
    if (a->yd)
        cudnnDestroyTensorDescriptor(a->yd);
    if (a->wd)
        cudnnDestroyFilterDescriptor(a->wd);
    if (a->cd)
        cudnnDestroyConvolutionDescriptor(a->cd);
    if (a->bias_h)
        cudnnDestroyTensorDescriptor(a->bias_h);
    if (a->bias_f)
        cudnnDestroyTensorDescriptor(a->bias_f);
}

void nn_cuda_plan_free(cuda_plan *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->num_algos; i++)
        algo_destroy(&p->algos[i]);
    free(p->algos);
    if (p->graph)
        cudaGraphExecDestroy(p->graph);
    free(p);
}

/* Whether a cuDNN algorithm sums the products of the convolution itself; FFT and Winograd
 * transform the tiles first and lose a few more bits. fp32 is the mode held to the reference
 * tolerances, so it takes only these (on an H200 the one value beyond them, g170's ownership
 * at score14@209, stayed at 2.08e-5 either way: KataGo's own rounding, see test_cuda). */
static bool exact_sum(cudnnConvolutionFwdAlgo_t algo)
{
    return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
           algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

/* cuDNN's fastest algorithm for the shape described in a whose workspace fits, timed on in
 * with the output going to C->find_out; fp32 takes only the directly summing algorithms
 * without tensor math. */
static bool algo_find(cuda_ctx *C, const cuda_conv *c, const void *in, cuda_algo *a,
                      nn_cuda_choice *chosen)
{
    const cuda_weights *W = C->W;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    CUDNN_CHECK(C, cudnnFindConvolutionForwardAlgorithmEx(
                       C->dnn, a->xd, in, a->wd, c->w, a->cd, a->yd, C->find_out,
                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf, C->dnn_ws,
                       C->dnn_ws_bytes));
    for (int i = 0; i < found; i++) {
        bool tensor_math = perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
                           perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > C->dnn_ws_bytes ||
            (!W->fp16 && (tensor_math || !exact_sum(perf[i].algo))))
            continue;
        chosen->algo = (int)perf[i].algo;
        chosen->math = (int)perf[i].mathType;
        chosen->ws_bytes = perf[i].memory;
        return true;
    }
    char why[160];
    snprintf(why, sizeof why, "no algorithm for %s (batch %d, %dx%d, %d -> %d channels)",
             c->name, C->plan->n, C->plan->width, C->plan->height, c->c_in, c->c_out);
    return nn_cuda_fail(C, "cudnnFindConvolutionForwardAlgorithmEx", why, __FILE__, __LINE__);
}

/* Describes c's shape for the plan's batch in a and gives it the model's algorithm for the
 * shape: the one another context chose, or else the one algo_find finds now (see
 * cuda_choices.h: one search at a time across the model's contexts). */
static bool algo_search(cuda_ctx *C, const cuda_conv *c, const void *in, cuda_algo *a)
{
    const cuda_plan *P = C->plan;
    const cuda_weights *W = C->W;
    cudnnDataType_t type = W->fp16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    int pad = c->k / 2 * c->dil;
    CUDNN_CHECK(C, cudnnCreateTensorDescriptor(&a->xd));
    CUDNN_CHECK(C, cudnnCreateTensorDescriptor(&a->yd));
    CUDNN_CHECK(C, cudnnCreateFilterDescriptor(&a->wd));
    CUDNN_CHECK(C, cudnnCreateConvolutionDescriptor(&a->cd));
    CUDNN_CHECK(C, cudnnSetTensor4dDescriptor(a->xd, CUDNN_TENSOR_NHWC, type, P->n, c->c_in,
                                              P->height, P->width));
    CUDNN_CHECK(C, cudnnSetTensor4dDescriptor(a->yd, CUDNN_TENSOR_NHWC, type, P->n, c->c_out,
                                              P->height, P->width));
    CUDNN_CHECK(C, cudnnSetFilter4dDescriptor(a->wd, type, CUDNN_TENSOR_NHWC, c->c_out, c->c_in,
                                              c->k, c->k));
    CUDNN_CHECK(C, cudnnSetConvolution2dDescriptor(a->cd, pad, pad, 1, 1, c->dil, c->dil,
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    /* fp32 must stay fp32: FMA math keeps cuDNN off TF32 tensor cores, which would cost the
     * reference tolerance */
    CUDNN_CHECK(C, cudnnSetConvolutionMathType(a->cd, W->fp16 ? CUDNN_TENSOR_OP_MATH
                                                              : CUDNN_FMA_MATH));
    nn_cuda_choice key = {.n = P->n, .height = P->height, .width = P->width, .k = c->k,
                          .dil = c->dil, .c_in = c->c_in, .c_out = c->c_out};
    nn_cuda_choice chosen = key;
    nn_cuda_choices_lock(W->choices);
    bool ok = nn_cuda_choices_find(W->choices, &key, C->dnn_ws_bytes, &chosen);
    if (!ok && (ok = algo_find(C, c, in, a, &chosen)))
        nn_cuda_choices_add(W->choices, &chosen);   /* out of memory: the next one searches */
    nn_cuda_choices_unlock(W->choices);
    if (!ok)
        return false;
    if (W->fp16)
        CUDNN_CHECK(C, cudnnSetConvolutionMathType(a->cd, (cudnnMathType_t)chosen.math));
    a->algo = (cudnnConvolutionFwdAlgo_t)chosen.algo;
    a->ws_bytes = chosen.ws_bytes;
    return true;
}

/* The plan's algorithm for c's shape, searched now on the plan's first run. */
static bool algo_for(cuda_ctx *C, const cuda_conv *c, const void *in, cuda_algo **out)
{
    cuda_plan *P = C->plan;
    for (int i = 0; i < P->num_algos; i++) {
        cuda_algo *a = &P->algos[i];
        if (a->k == c->k && a->dil == c->dil && a->c_in == c->c_in && a->c_out == c->c_out) {
            *out = a;
            return true;
        }
    }
    if (C->capturing)
        return nn_cuda_fail(C, "graph capture", "a convolution shape the first run never saw",
                            __FILE__, __LINE__);
    if (P->num_algos == P->cap_algos) {
        int cap = P->cap_algos ? 2 * P->cap_algos : 8;
        cuda_algo *grown = realloc(P->algos, sizeof *grown * (size_t)cap);
        if (!grown)
            return nn_cuda_fail(C, "realloc", "out of host memory", __FILE__, __LINE__);
        P->algos = grown;
        P->cap_algos = cap;
    }
    cuda_algo a = {.k = c->k, .dil = c->dil, .c_in = c->c_in, .c_out = c->c_out};
    if (!algo_search(C, c, in, &a)) {
        algo_destroy(&a);
        return false;
    }
    P->algos[P->num_algos] = a;
    *out = &P->algos[P->num_algos++];
    return true;
}

/* Whether ep is what c's fused copy computes: its norm's scale and bias, then an optional
 * residual from another buffer, then ReLU. */
static bool fusable(const cuda_conv *c, const nn_cuda_epilogue *ep, const void *out)
{
    return c->w_fused && c->fused_bn && ep->scale == c->fused_bn->scale &&
           ep->bias == c->fused_bn->bias && !ep->bias_nc && ep->act == NN_ACT_RELU &&
           !ep->mask && !ep->out2 && ep->residual != out;
}

/* cudnnConvolutionBiasActivationForward with the bias of the given kind, making its
 * descriptor on first use. */
static cudnnStatus_t fused_call(cuda_ctx *C, const cuda_conv *c, cuda_algo *a, const void *in,
                                void *out, const nn_cuda_epilogue *ep, bool half_bias)
{
    cudnnTensorDescriptor_t *bd = half_bias ? &a->bias_h : &a->bias_f;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (!*bd) {
        st = cudnnCreateTensorDescriptor(bd);
        if (st == CUDNN_STATUS_SUCCESS)
            st = cudnnSetTensor4dDescriptor(*bd, CUDNN_TENSOR_NCHW,
                                            half_bias ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, 1,
                                            c->c_out, 1, 1);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    const float one = 1.0f, alpha2 = ep->residual ? 1.0f : 0.0f;
    /* y = relu(conv(x, w * scale) + z + bias): the epilogue's order, scale first */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    st = cudnnConvolutionBiasActivationForward(
        C->dnn, &one, a->xd, in, a->wd, c->w_fused, a->cd, a->algo, C->dnn_ws, a->ws_bytes,
        &alpha2, a->yd, ep->residual ? ep->residual : out, *bd,
        half_bias ? c->bias_fused_h : (const void *)c->bias_fused_f, C->relu, a->yd, out);
#pragma GCC diagnostic pop
    return st;
}

/* The fused convolution where c and ep allow it and cuDNN took it on the plan's first run of
 * the shape (tried there, half bias first, then float); false when the plain path must run.
 * A failure after cuDNN took the shape is an error in C->err (*failed). */
static bool try_fused(cuda_ctx *C, const cuda_conv *c, cuda_algo *a, const void *in, void *out,
                      const nn_cuda_epilogue *ep, bool *failed)
{
    *failed = false;
    if (!fusable(c, ep, out) || a->fused == FUSE_REFUSED)
        return false;
    if (a->fused == FUSE_UNTRIED) {
        if (C->capturing)
            return false;
        int span = nn_cuda_prof_begin(C, CUDA_PROF_FUSED);
        if (fused_call(C, c, a, in, out, ep, true) == CUDNN_STATUS_SUCCESS)
            a->fused = FUSE_HALF_BIAS;
        else if (fused_call(C, c, a, in, out, ep, false) == CUDNN_STATUS_SUCCESS)
            a->fused = FUSE_FLOAT_BIAS;
        else
            a->fused = FUSE_REFUSED;
        nn_cuda_prof_end(C, span);
        cudaGetLastError();
        return a->fused != FUSE_REFUSED;
    }
    int span = nn_cuda_prof_begin(C, CUDA_PROF_FUSED);
    cudnnStatus_t st = fused_call(C, c, a, in, out, ep, a->fused == FUSE_HALF_BIAS);
    nn_cuda_prof_end(C, span);
    if (st != CUDNN_STATUS_SUCCESS) {
        *failed = true;
        return nn_cuda_fail(C, "cudnnConvolutionBiasActivationForward", cudnnGetErrorString(st),
                            __FILE__, __LINE__);
    }
    return true;
}

bool nn_cuda_conv(cuda_ctx *C, const cuda_conv *c, const void *in, void *out,
                  const nn_cuda_epilogue *ep)
{
    const cuda_weights *W = C->W;
    int n = C->plan->n, height = C->plan->height, width = C->plan->width;
    if (c->w_igemm && nn_cuda_conv_igemm_supported(c->k, c->c_in, c->c_out, height, width)) {
        int span = nn_cuda_prof_begin(C, CUDA_PROF_IGEMM);
        CUDA_CHECK(C, nn_cuda_conv_igemm_f16(in, c->w_igemm, out, n, height, width, c->c_in,
                                             c->c_out, c->k, ep, C->stream));
        nn_cuda_prof_end(C, span);
        return true;
    }
    bool accumulate = ep->residual == out;
    if (accumulate && (ep->scale || ep->bias || ep->bias_nc)) {
        fprintf(stderr, "%s: %s: an in-place residual cannot follow a scale or bias\n", __func__,
                c->name);
        abort();
    }
    const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    if (c->k == 1) {
        /* NHWC makes a 1x1 convolution the product out[n*area][c_out] = in[n*area][c_in] .
         * w[c_out][c_in]^T; column-major cuBLAS sees out^T = w^T-as-stored . in^T */
        cudaDataType_t type = W->fp16 ? CUDA_R_16F : CUDA_R_32F;
        int span = nn_cuda_prof_begin(C, CUDA_PROF_CUBLAS);
        CUBLAS_CHECK(C, cublasGemmEx(C->blas, CUBLAS_OP_T, CUBLAS_OP_N, c->c_out,
                                     n * height * width,
                                     c->c_in, &one, c->w, type, c->c_in, in, type, c->c_in, &beta,
                                     out, type, c->c_out, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
        nn_cuda_prof_end(C, span);
    } else {
        cuda_algo *a = NULL;
        if (!algo_for(C, c, in, &a))
            return false;
        bool failed;
        if (try_fused(C, c, a, in, out, ep, &failed))
            return true;
        if (failed)
            return false;
        int span = nn_cuda_prof_begin(C, CUDA_PROF_CUDNN);
        CUDNN_CHECK(C, cudnnConvolutionForward(C->dnn, &one, a->xd, in, a->wd, c->w, a->cd,
                                               a->algo, C->dnn_ws, a->ws_bytes, &beta, a->yd,
                                               out));
        nn_cuda_prof_end(C, span);
    }
    nn_cuda_epilogue rest = *ep;
    if (accumulate)
        rest.residual = NULL;
    if (!epilogue_is_noop(&rest)) {
        int span = nn_cuda_prof_begin(C, CUDA_PROF_EPILOGUE);
        if (W->fp16)
            CUDA_CHECK(C, nn_cuda_epilogue_f16(out, n, height, width, c->c_out, &rest,
                                               C->stream));
        else
            CUDA_CHECK(C, nn_cuda_epilogue_f32(out, n, height, width, c->c_out, &rest,
                                               C->stream));
        nn_cuda_prof_end(C, span);
    }
    return true;
}

bool nn_cuda_matmul(cuda_ctx *C, const cuda_matmul *m, const float *x, float *y, int act,
                    bool accumulate)
{
    int n = C->plan->n;
    const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_MATMUL);
    /* row-major y[n][c_out] = x[n][c_in] . w[c_in][c_out] is column-major y^T = w^T . x^T */
    CUBLAS_CHECK(C, cublasSgemm(C->blas, CUBLAS_OP_N, CUBLAS_OP_N, m->c_out, n, m->c_in, &one,
                                m->w, m->c_out, x, m->c_in, &beta, y, m->c_out));
    if (m->bias || act != NN_ACT_IDENTITY) {
        nn_cuda_epilogue e = {.bias = m->bias, .act = act};
        CUDA_CHECK(C, nn_cuda_epilogue_f32(y, n, 1, 1, m->c_out, &e, C->stream));
    }
    nn_cuda_prof_end(C, span);
    return true;
}

bool nn_cuda_pool(cuda_ctx *C, int c, const void *x, bool value_head, float *out)
{
    int n = C->plan->n, area = C->plan->height * C->plan->width;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_POOL);
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_kata_pool_f16(n, c, area, value_head, x, out, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_kata_pool_f32(n, c, area, value_head, x, out, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}

bool nn_cuda_to_planes(cuda_ctx *C, int c, const void *x, float *out)
{
    int n = C->plan->n, area = C->plan->height * C->plan->width;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_LAYOUT);
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_nhwc_to_nchw_f16(n, c, area, x, out, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_nhwc_to_nchw_f32(n, c, area, x, out, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}

bool nn_cuda_from_planes(cuda_ctx *C, int c, int c_pad, const float *in, void *out)
{
    int n = C->plan->n, area = C->plan->height * C->plan->width;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_LAYOUT);
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_nchw_to_nhwc_f16(n, c, c_pad, area, in, out, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_nchw_to_nhwc_f32(n, c, c_pad, area, in, out, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}

/* ---- transformer pieces -------------------------------------------------------------------- */

bool nn_cuda_rms_norm(cuda_ctx *C, const cuda_block *b, const void *x, void *y)
{
    long rows = (long)C->plan->n * C->plan->height * C->plan->width;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_NORM);
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_rms_norm_f16(rows, b->c, b->norm_eps, b->norm_w, x, y, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_rms_norm_f32(rows, b->c, b->norm_eps, b->norm_w, x, y, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}

/* Row-major products per image i of the batch, as cuBLAS sees them column-major: a matrix
 * M[r][c] with row stride ld is M^T to cuBLAS. */
static bool strided_gemm(cuda_ctx *C, cublasOperation_t ta, int m, int nn, int k, float alpha,
                         const void *a, cudaDataType_t at, int lda, long long stride_a,
                         const void *b, cudaDataType_t bt, int ldb, long long stride_b, void *c,
                         cudaDataType_t ct, int ldc, long long stride_c)
{
    const float zero = 0.0f;
    CUBLAS_CHECK(C, cublasGemmStridedBatchedEx(C->blas, ta, CUBLAS_OP_N, m, nn, k, &alpha, a, at,
                                               lda, stride_a, b, bt, ldb, stride_b, &zero, c, ct,
                                               ldc, stride_c, C->plan->n, CUBLAS_COMPUTE_32F,
                                               CUBLAS_GEMM_DEFAULT));
    return true;
}

/* Rotary encodings in place on the heads of qkv[n][area][b->qkv_c] from channel offset. */
static bool rope(cuda_ctx *C, const cuda_block *b, int heads, int offset, void *qkv)
{
    int n = C->plan->n, height = C->plan->height, width = C->plan->width;
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_rope_f16(n, height, width, b->qkv_c, offset, heads, b->rope_tables,
                                       b->q_dim, b->rope_cos, b->rope_sin, qkv, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_rope_f32(n, height, width, b->qkv_c, offset, heads, b->rope_tables,
                                       b->q_dim, b->rope_cos, b->rope_sin, qkv, C->stream));
    return true;
}

bool nn_cuda_attention(cuda_ctx *C, const cuda_block *b, void *qkv, void *o)
{
    const cuda_weights *W = C->W;
    int n = C->plan->n, area = C->plan->height * C->plan->width, group = b->heads / b->kv_heads;
    int k_off = b->heads * b->q_dim, v_off = k_off + b->kv_heads * b->q_dim;
    int o_c = b->heads * b->v_dim;
    size_t elt = W->elt;
    cudaDataType_t type = W->fp16 ? CUDA_R_16F : CUDA_R_32F;
    char *t = qkv, *out = o;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_ATTENTION);
    if (b->rope_tables > 0 &&
        (!rope(C, b, b->heads, 0, qkv) || !rope(C, b, b->kv_heads, k_off, qkv)))
        return false;
    long long img = (long long)area * b->qkv_c, square = (long long)area * area;
    void *probs = W->fp16 ? C->probs : (void *)C->scores;
    for (int h = 0; h < b->heads; h++) {
        int kvh = h / group;
        /* scores[i][q][k] = q . k / sqrt(q_dim): cuBLAS sees the stored K and Q (rows of
         * q_dim, row stride qkv_c) as K^T and Q^T, and S as S^T = (K^T)^T . Q^T */
        if (!strided_gemm(C, CUBLAS_OP_T, area, area, b->q_dim, 1.0f / sqrtf((float)b->q_dim),
                          t + elt * (size_t)(k_off + kvh * b->q_dim), type, b->qkv_c, img,
                          t + elt * (size_t)(h * b->q_dim), type, b->qkv_c, img, C->scores,
                          CUDA_R_32F, area, square))
            return false;
        if (W->fp16)
            CUDA_CHECK(C, nn_cuda_softmax_f16((long)n * area, area, C->scores, probs, C->stream));
        else
            CUDA_CHECK(C, nn_cuda_softmax_f32((long)n * area, area, C->scores, probs, C->stream));
        /* o[i][q][h * v_dim + d] = sum over k of p[i][q][k] v[i][k][d] */
        if (!strided_gemm(C, CUBLAS_OP_N, b->v_dim, area, area, 1.0f,
                          t + elt * (size_t)(v_off + kvh * b->v_dim), type, b->qkv_c, img, probs,
                          type, area, square, out + elt * (size_t)(h * b->v_dim), type, o_c,
                          (long long)area * o_c))
            return false;
    }
    nn_cuda_prof_end(C, span);
    return true;
}

bool nn_cuda_swiglu(cuda_ctx *C, int ffn, const void *ag, void *h)
{
    long rows = (long)C->plan->n * C->plan->height * C->plan->width;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_NORM);
    if (C->W->fp16)
        CUDA_CHECK(C, nn_cuda_swiglu_f16(rows, ffn, ag, h, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_swiglu_f32(rows, ffn, ag, h, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}

bool nn_cuda_tip_rms(cuda_ctx *C, const cuda_kata *K, int c, const void *x, void *out)
{
    int n = C->plan->n, area = C->plan->height * C->plan->width;
    /* fp32 is held to the reference tolerances: KataGo's sum order; fp16 takes the fast sum */
    bool fp16 = C->W->fp16;
    int span = nn_cuda_prof_begin(C, CUDA_PROF_NORM);
    if (fp16)
        CUDA_CHECK(C, nn_cuda_tip_rms_f16(n, area, c, K->tip_spatial, 0, K->tip_eps, K->tip_gamma,
                                          K->tip_beta, K->tip_act, x, out, C->stream));
    else
        CUDA_CHECK(C, nn_cuda_tip_rms_f32(n, area, c, K->tip_spatial, 1, K->tip_eps, K->tip_gamma,
                                          K->tip_beta, K->tip_act, x, out, C->stream));
    nn_cuda_prof_end(C, span);
    return true;
}
