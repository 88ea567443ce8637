/* nn/cuda/cuda_internal.h -- what the files of the "cuda" backend share: the weights as the
 * device holds them, the per-thread context, the checked-call macros and the layer helpers.
 *
 * Layouts: activations NHWC ([n][height][width][c]) in the activation type (float, or half in
 * fp16 mode), packed for the batch's own tensor shape (backend.h), so every point of a tensor
 * is on the board and no mask is needed; per-position vectors (pooled values, biases, head hidden
 * layers) are always floats [n][c]. Convolution weights are [c_out][k][k][c_in] (cuDNN's NHWC
 * "KRSC" filter; for k = 1 the row-major matrix cuBLAS multiplies), batch norms are folded
 * into scale and bias (y = x * scale + bias), matmul weights stay [c_in][c_out] floats.
 *
 * Files: cuda_backend.c (vtable, context, forward with graphs and pinned transfers),
 * cuda_weights.c (load), cuda_layers.c (one layer on the device), cuda_nets.c (the KataGo and
 * Leela Zero forward passes), cuda_choices.c (cuDNN's algorithm choices shared by a model's
 * contexts), cuda_options.c (option text), cuda_device.c (discovery). */
#ifndef SHIDO_NN_CUDA_INTERNAL_H
#define SHIDO_NN_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "nn/backend.h"
#include "nn/cuda/cuda_choices.h"
#include "nn/cuda/cuda_options.h"
#include "nn/cuda/kernels/conv_igemm.h"
#include "weights/desc_kata.h"
#include "weights/desc_lz.h"

#define CUDA_MAX_SIZE 19
#define CUDA_MAX_AREA (CUDA_MAX_SIZE * CUDA_MAX_SIZE)

/* ---- weights ------------------------------------------------------------------------------ */

typedef struct cuda_conv {
    const char *name;
    int k, dil, c_in, c_out;  /* c_in: channels of the input tensor (padded for net inputs) */
    void *w;                  /* [c_out][k][k][c_in], activation type */
    void *w_igemm;            /* the implicit-GEMM kernel's copy (conv=igemm, fp16), or NULL */
    /* fuse=1 (fp16, cuDNN, k > 1, ReLU after): the filter times the scale of the batch norm
     * fused_bn that follows it, and that norm's bias in half and in float, for
     * cudnnConvolutionBiasActivationForward; NULL where the net never fuses this one */
    void *w_fused, *bias_fused_h;
    float *bias_fused_f;
    const struct cuda_bn *fused_bn;
} cuda_conv;

typedef struct cuda_bn {
    int c;
    float *scale, *bias;      /* [c], device */
} cuda_bn;

typedef struct cuda_matmul {
    int c_in, c_out;
    float *w;                 /* [c_in][c_out], device */
    float *bias;              /* [c_out], device, or NULL */
} cuda_matmul;

typedef struct cuda_block {
    nn_kata_block_kind kind;
    cuda_bn bn1, bn2, gpool_bn;
    int act1, act2, gpool_act;
    cuda_conv conv1, conv2, gpool_conv;
    cuda_matmul gpool_to_bias;  /* columns multiplied by bn2's scale: the bias enters after it */
    int num_inner;
    struct cuda_block *inner;
    /* NN_KATA_BLOCK_ATTENTION and NN_KATA_BLOCK_FFN (the fields above stay empty): x += out(f(
     * rms_norm(x))), the projections as 1x1 convolutions on the stream's c channels */
    int c;
    float norm_eps;
    float *norm_w;              /* [c], device */
    cuda_conv in_proj;          /* attention: c -> q | k | v (qkv_c); ffn: c -> linear1 | gate */
    cuda_conv out_proj;         /* attention: heads * v_dim -> c; ffn: linear2, ffn_c -> c */
    int heads, kv_heads, q_dim, v_dim, qkv_c, ffn_c;
    int rope_tables;            /* 0: no rotary encoding; else 1 (theta) or kv_heads (learned) */
    float *rope_cos, *rope_sin; /* [rope_tables][q_dim / 2][361], device */
} cuda_block;

typedef struct cuda_kata {
    cuda_conv initial_conv;
    cuda_matmul initial_matmul;
    bool has_meta;
    cuda_matmul meta1, meta2, meta3;
    int meta_act1, meta_act2;
    int num_blocks;
    cuda_block *blocks;
    cuda_bn tip_bn;             /* a batch-norm trunk's tip */
    int tip_act;
    bool tip_rms;               /* an RMS-norm trunk's tip instead (trunk norm kind 1) */
    bool tip_spatial;
    float tip_eps;
    float *tip_gamma, *tip_beta; /* [trunk channels], device */
    /* policy head */
    int policy_channels;
    cuda_conv p1_conv, g1_conv, p2_conv;
    cuda_bn g1_bn, p1_bn;
    int g1_act, p1_act, pass_act;
    cuda_matmul policy_to_bias;  /* columns multiplied by p1_bn's scale */
    cuda_matmul to_pass, to_pass2;
    bool has_pass2;
    /* value head */
    cuda_conv v1_conv, ownership_conv;
    cuda_bn v1_bn;
    int v1_act, v2_act;
    cuda_matmul v2, v3, sv3;
    int score_channels;
} cuda_kata;

typedef struct cuda_lz_block {
    cuda_conv conv1, conv2;
    cuda_bn bn1, bn2;
} cuda_lz_block;

typedef struct cuda_lz {
    cuda_conv input_conv, policy_conv, value_conv;
    cuda_bn input_bn, policy_bn, value_bn;
    int blocks;
    cuda_lz_block *block;
    cuda_matmul policy_fc, value_fc1, value_fc2;
} cuda_lz;

typedef struct cuda_weights {
    const nn_desc *d;
    nn_cuda_options opt;       /* precision resolved to fp32 or fp16 */
    bool fp16;
    size_t elt;                /* bytes per activation */
    int num_spatial, num_global, num_meta;   /* input floats per position (planes, vectors) */
    int max_c;                 /* channels of the widest activation */
    int max_vec;               /* longest per-position float vector */
    int depth;                 /* nesting of KataGo's nested bottleneck blocks (0: none) */
    bool attention;            /* transformer attention blocks: contexts hold score buffers */
    cuda_kata kata;
    cuda_lz lz;
    nn_cuda_choices *choices;  /* cuDNN's algorithms, shared by the model's contexts */
    void **allocs;             /* every device allocation, for nn_cuda_weights_free */
    int num_allocs, cap_allocs;
} cuda_weights;

/* Converts d for the device opt names (precision still AUTO is resolved here). Returns NULL
 * with a message naming the layer in err (unsupported shape, out of device memory). */
cuda_weights *nn_cuda_weights_load(const nn_desc *d, const nn_cuda_options *opt, char *err,
                                   int err_len);
void nn_cuda_weights_free(cuda_weights *w);

/* ---- context ------------------------------------------------------------------------------ */

/* cuDNN's chosen algorithm for one convolution shape in one plan. */
typedef struct cuda_algo {
    int k, dil, c_in, c_out;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws_bytes;
    /* fuse=1: how cudnnConvolutionBiasActivationForward went on the plan's first run of this
     * shape: FUSE_UNTRIED, FUSE_HALF_BIAS, FUSE_FLOAT_BIAS, or FUSE_REFUSED (plain conv + our
     * epilogue from then on) */
    int fused;
    cudnnTensorDescriptor_t bias_h, bias_f;   /* [1][c_out][1][1], made with the first try */
} cuda_algo;

enum { FUSE_UNTRIED = 0, FUSE_HALF_BIAS, FUSE_FLOAT_BIAS, FUSE_REFUSED };

/* Everything that depends on one (batch size, tensor shape, metadata present) triple: the
 * algorithms searched on its first run and the CUDA graph captured on its second. */
typedef struct cuda_plan {
    int n, height, width;
    bool meta;
    int runs;
    cuda_algo *algos;
    int num_algos, cap_algos;
    cudaGraphExec_t graph;
} cuda_plan;

typedef struct cuda_level {
    void *x, *a, *t, *g;       /* [max_batch][361][max_c] activations each */
} cuda_level;

/* Device addresses of the current forward's outputs, packed as backend.h lays them out. */
typedef struct cuda_outputs {
    float *policy, *pass, *value, *score, *ownership;
} cuda_outputs;

/* What SHIDO_CUDA_PROFILE=1 times on the device, per forward (cuda_backend.c prints it). */
enum { CUDA_PROF_CUDNN, CUDA_PROF_FUSED, CUDA_PROF_CUBLAS, CUDA_PROF_IGEMM, CUDA_PROF_EPILOGUE,
       CUDA_PROF_MATMUL, CUDA_PROF_POOL, CUDA_PROF_LAYOUT, CUDA_PROF_ATTENTION, CUDA_PROF_NORM,
       CUDA_PROF_COPY, CUDA_PROF_TOTAL, CUDA_PROF_KINDS };

typedef struct cuda_ctx {
    const cuda_weights *W;
    int max_batch;
    bool graphs;               /* cleared for good when a capture fails */
    cudaStream_t stream;
    cublasHandle_t blas;
    cudnnHandle_t dnn;
    cudnnActivationDescriptor_t relu;   /* for the fused convolutions */
    void *blas_ws, *dnn_ws;
    size_t blas_ws_bytes, dnn_ws_bytes;
    cuda_level *lv;            /* [depth + 1]: the activations of each nesting level */
    void *find_out;            /* cuDNN's algorithm search writes here, never into live data */
    float *pooled, *bias_nc, *hidden, *vec;   /* [max_batch][max_vec] floats each */
    float *scores;             /* attention: one head's [max_batch][361][361] floats, or NULL */
    void *probs;               /* the same as activations (fp16; fp32 works in place) */
    float *dev_in, *dev_out, *host_in, *host_out;   /* host_*: pinned */
    size_t in_floats, out_floats;             /* capacity of each of the four, in floats */
    cuda_plan **plans;         /* [num_plans], each made on its first use */
    int num_plans, cap_plans;
    /* the forward under way */
    cuda_plan *plan;
    bool capturing;
    cuda_outputs out;
    char err[512];             /* the first failure of the forward under way */
    /* SHIDO_CUDA_PROFILE=1 (graphs off): event pairs around the layers of each forward after a
     * plan's first, summed per kind and printed when the context is freed */
    bool profile;
    cudaEvent_t *prof_ev;      /* [2 * cap_prof], made as needed and reused */
    int *prof_kind;
    int num_prof, cap_prof;
    bool prof_failed;          /* out of memory or events refused: the profile says so */
    double prof_ms[CUDA_PROF_KINDS];
    long prof_forwards, prof_positions;
} cuda_ctx;

/* Opens a profile span of kind for what follows on C->stream and returns it (-1 unless
 * C->profile); nn_cuda_prof_end closes it (nothing for -1). */
int nn_cuda_prof_begin(cuda_ctx *C, int kind);
void nn_cuda_prof_end(cuda_ctx *C, int span);

/* ---- checked calls during a forward ---------------------------------------------------------
 * Each returns false from the enclosing function with the failing call, file:line and device
 * in C->err, so the failure climbs to nn_backend_ops.forward's err. */
bool nn_cuda_fail(cuda_ctx *C, const char *call, const char *why, const char *file, int line);

#define CUDA_CHECK(C, call)                                                                        \
    do {                                                                                           \
        cudaError_t e_ = (cudaError_t)(call);                                                      \
        if (e_ != cudaSuccess)                                                                     \
            return nn_cuda_fail((C), #call, cudaGetErrorString(e_), __FILE__, __LINE__);           \
    } while (0)
#define CUBLAS_CHECK(C, call)                                                                      \
    do {                                                                                           \
        cublasStatus_t e_ = (call);                                                                \
        if (e_ != CUBLAS_STATUS_SUCCESS)                                                           \
            return nn_cuda_fail((C), #call, cublasGetStatusString(e_), __FILE__, __LINE__);        \
    } while (0)
#define CUDNN_CHECK(C, call)                                                                       \
    do {                                                                                           \
        cudnnStatus_t e_ = (call);                                                                 \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                            \
            return nn_cuda_fail((C), #call, cudnnGetErrorString(e_), __FILE__, __LINE__);         \
    } while (0)

/* ---- layers (cuda_layers.c), on C->stream for the plan's batch --------------------------------
 * Each returns false with C->err set. */

/* out = ep(conv(in)): the implicit-GEMM kernel with its fused epilogue where the weights have
 * its copy and it takes the shape; otherwise cuDNN (k > 1) or cuBLAS (k = 1) and then the
 * epilogue kernel. ep->residual == out means "add to out": then ep must have no scale, bias or
 * bias_nc (cuDNN and cuBLAS accumulate with beta = 1). */
bool nn_cuda_conv(cuda_ctx *C, const cuda_conv *c, const void *in, void *out,
                  const nn_cuda_epilogue *ep);

/* y[n][c_out] = act(x[n][c_in] . w + bias), floats; with accumulate y += x . w (m has no bias
 * then and act is the identity). */
bool nn_cuda_matmul(cuda_ctx *C, const cuda_matmul *m, const float *x, float *y, int act,
                    bool accumulate);

/* KataGo's pooling of x[n][area][c] into out[n][3c]. */
bool nn_cuda_pool(cuda_ctx *C, int c, const void *x, bool value_head, float *out);

/* x[n][area][c] activations -> out[n][c][area] floats. */
bool nn_cuda_to_planes(cuda_ctx *C, int c, const void *x, float *out);

/* Input planes in[n][c][area] floats -> out[n][area][c_pad] activations. */
bool nn_cuda_from_planes(cuda_ctx *C, int c, int c_pad, const float *in, void *out);

/* Transformer pieces (KataGo 1.17) on x[n][area][c] activations. */

/* y = rms_norm(x) with the block's norm (b->c channels). */
bool nn_cuda_rms_norm(cuda_ctx *C, const cuda_block *b, const void *x, void *y);

/* The attention of block b from qkv[n][area][b->qkv_c] (queries, keys, values side by side, as
 * b->in_proj makes them; the rotary encodings are applied here, in place) into
 * o[n][area][heads * v_dim]: per head softmax(q k^T / sqrt(q_dim)) v over every point. */
bool nn_cuda_attention(cuda_ctx *C, const cuda_block *b, void *qkv, void *o);

/* h[n][area][ffn] = silu(ag[., :ffn]) * ag[., ffn:] */
bool nn_cuda_swiglu(cuda_ctx *C, int ffn, const void *ag, void *h);

/* out = the RMS-norm trunk tip of K applied to x. */
bool nn_cuda_tip_rms(cuda_ctx *C, const cuda_kata *K, int c, const void *x, void *out);

/* Releases the cuDNN descriptors and the graph of a plan, and the plan. */
void nn_cuda_plan_free(cuda_plan *p);

/* ---- networks (cuda_nets.c) -----------------------------------------------------------------
 * One forward of the current plan from the inputs at C->dev_in to the outputs at C->out. */
bool nn_cuda_kata_forward(cuda_ctx *C, const float *spatial, const float *global,
                          const float *meta);
bool nn_cuda_lz_forward(cuda_ctx *C, const float *spatial);

#endif
