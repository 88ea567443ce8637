/* nn/cuda/cuda_backend.c -- the "cuda" backend (nn/backend.h): options (cuda_options.h), weights
 * converted once (cuda_weights.c), and per context a stream, cuBLAS and cuDNN handles with
 * their workspaces, the activations for max_batch positions, and pinned host buffers.
 *
 * A forward copies the batch into pinned memory, and on one stream uploads it, runs the net
 * (cuda_nets.c) and downloads the outputs, then waits once. Everything that depends on the
 * (batch size, tensor shape) pair lives in a plan: its first run searches cuDNN's algorithms;
 * from the second on, the whole upload-compute-download sequence is a CUDA graph captured once
 * and replayed, so a batch costs one launch instead of hundreds. A capture that fails turns
 * graphs off for the context (with a message) and the forward runs eagerly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda_internal.h"

#define CUDA_BLAS_WORKSPACE ((size_t)32 << 20)   /* what cuBLAS asks for on Hopper */
#define CUDA_DNN_WORKSPACE ((size_t)256 << 20)   /* room for cuDNN's faster algorithms */

static bool cuda_available(char *err, int err_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess && e != cudaErrorNoDevice) {
        snprintf(err, (size_t)err_len, "no usable CUDA device (%s)", cudaGetErrorString(e));
        cudaGetLastError();
        return false;
    }
    if (e == cudaErrorNoDevice || n == 0) {
        cudaGetLastError();
        snprintf(err, (size_t)err_len, "no CUDA device present");
        return false;
    }
    return true;
}

static void *cuda_load(const nn_desc *d, const char *options, char *err, int err_len)
{
    nn_cuda_options opt;
    char why[256];
    if (d->family == NN_FAMILY_DISC) {
        /* a small CNN on 9x9 windows: the CPU path scores thousands a second, the GPU trains it
         * (nn/train) */
        snprintf(err, (size_t)err_len, "%s: the cuda backend does not evaluate tsumego "
                 "discriminators; use cpu", d->source);
        return NULL;
    }
    if (!nn_cuda_options_parse(options, &opt, why, (int)sizeof why)) {
        snprintf(err, (size_t)err_len, "%s: %s", d->source, why);
        return NULL;
    }
    return nn_cuda_weights_load(d, &opt, err, err_len);
}

static void cuda_free(void *weights) { nn_cuda_weights_free(weights); }

static const char *const prof_names[CUDA_PROF_KINDS] = {
    "conv cuDNN", "conv+bias+ReLU cuDNN", "conv 1x1 cuBLAS", "conv igemm", "epilogues",
    "matmuls", "pooling", "layout", "attention", "norms+SwiGLU", "copies", "total"};

/* The profile of C's forwards, on stderr. */
static void prof_print(const cuda_ctx *C)
{
    if (C->prof_failed) {
        fprintf(stderr, "nn: cuda profile: events could not be made; no profile\n");
        return;
    }
    if (C->prof_forwards == 0)
        return;
    double per = 1.0 / (double)C->prof_forwards, known = 0;
    fprintf(stderr, "nn: cuda profile: %ld forwards, %.1f positions each; ms per forward:",
            C->prof_forwards, (double)C->prof_positions * per);
    for (int k = 0; k < CUDA_PROF_TOTAL; k++) {
        known += C->prof_ms[k];
        fprintf(stderr, " %s %.4f |", prof_names[k], C->prof_ms[k] * per);
    }
    fprintf(stderr, " other %.4f | total %.4f\n", (C->prof_ms[CUDA_PROF_TOTAL] - known) * per,
            C->prof_ms[CUDA_PROF_TOTAL] * per);
}

/* Adds the spans of the forward just synchronised to the profile. */
static void prof_collect(cuda_ctx *C, int n)
{
    for (int i = 0; !C->prof_failed && i < C->num_prof; i++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, C->prof_ev[2 * i], C->prof_ev[2 * i + 1]) != cudaSuccess) {
            cudaGetLastError();
            C->prof_failed = true;
        }
        C->prof_ms[C->prof_kind[i]] += ms;
    }
    C->num_prof = 0;
    C->prof_forwards++;
    C->prof_positions += n;
}

static void cuda_context_free(void *ctx)
{
    cuda_ctx *C = ctx;
    if (!C)
        return;
    cudaSetDevice(C->W->opt.device);
    if (C->stream)
        cudaStreamSynchronize(C->stream);
    if (C->profile)
        prof_print(C);
    for (int i = 0; i < 2 * C->cap_prof; i++)
        cudaEventDestroy(C->prof_ev[i]);
    free(C->prof_ev);
    free(C->prof_kind);
    for (int i = 0; i < C->num_plans; i++)
        nn_cuda_plan_free(C->plans[i]);
    free(C->plans);
    for (int l = 0; C->lv && l <= C->W->depth; l++) {
        cudaFree(C->lv[l].x);
        cudaFree(C->lv[l].a);
        cudaFree(C->lv[l].t);
        cudaFree(C->lv[l].g);
    }
    free(C->lv);
    cudaFree(C->find_out);
    cudaFree(C->pooled);
    cudaFree(C->bias_nc);
    cudaFree(C->hidden);
    cudaFree(C->vec);
    cudaFree(C->scores);
    cudaFree(C->probs);
    cudaFree(C->dev_in);
    cudaFree(C->dev_out);
    cudaFreeHost(C->host_in);
    cudaFreeHost(C->host_out);
    cudaFree(C->blas_ws);
    cudaFree(C->dnn_ws);
    if (C->blas)
        cublasDestroy(C->blas);
    if (C->relu)
        cudnnDestroyActivationDescriptor(C->relu);
    if (C->dnn)
        cudnnDestroy(C->dnn);
    if (C->stream)
        cudaStreamDestroy(C->stream);
    free(C);
}

/* Floats of the outputs of a batch of max_batch positions (19x19 tensors for KataGo). */
static size_t output_floats(const cuda_weights *W, int max_batch)
{
    size_t per;
    if (W->d->family == NN_FAMILY_KATA) {
        size_t oc = (size_t)W->kata.policy_channels;
        per = oc * CUDA_MAX_AREA + oc + 3 + (size_t)W->kata.score_channels + CUDA_MAX_AREA;
    } else {
        per = NN_LZ_POLICY_OUTPUTS + 1;
    }
    return per * (size_t)max_batch;
}

static void *cuda_context_new(const nn_desc *d, const void *weights, int max_batch, char *err,
                              int err_len)
{
    const cuda_weights *W = weights;
    cuda_ctx *C = calloc(1, sizeof *C);
    if (!C) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: out of host memory", d->source);
        return NULL;
    }
    C->W = W;
    C->max_batch = max_batch;
    C->graphs = W->opt.graphs;
    const char *profile = getenv("SHIDO_CUDA_PROFILE");
    C->profile = profile && *profile && strcmp(profile, "0") != 0;
    if (C->profile && C->graphs) {
        fprintf(stderr, "nn: cuda: SHIDO_CUDA_PROFILE times each layer, so CUDA graphs are off\n");
        C->graphs = false;
    }
    C->blas_ws_bytes = CUDA_BLAS_WORKSPACE;
    C->dnn_ws_bytes = CUDA_DNN_WORKSPACE;
    size_t act = (size_t)max_batch * CUDA_MAX_AREA * (size_t)W->max_c * W->elt;
    size_t vec = sizeof(float) * (size_t)max_batch * (size_t)W->max_vec;
    C->in_floats = (size_t)max_batch * ((size_t)W->num_spatial * CUDA_MAX_AREA +
                                        (size_t)W->num_global + (size_t)W->num_meta);
    C->out_floats = output_floats(W, max_batch);
    const char *call = NULL;
    cudaError_t e = cudaSuccess;
    /* the first failing step names itself in call */
#define STEP(x) (e == cudaSuccess && (call = #x, e = (cudaError_t)(x)) == cudaSuccess)
    bool ok = STEP(cudaSetDevice(W->opt.device)) &&
              STEP(cudaStreamCreateWithFlags(&C->stream, cudaStreamNonBlocking)) &&
              STEP(cudaMalloc(&C->blas_ws, C->blas_ws_bytes)) &&
              STEP(cudaMalloc(&C->dnn_ws, C->dnn_ws_bytes)) &&
              STEP(cudaMalloc(&C->find_out, act)) &&
              STEP(cudaMalloc((void **)&C->pooled, vec)) &&
              STEP(cudaMalloc((void **)&C->bias_nc, vec)) &&
              STEP(cudaMalloc((void **)&C->hidden, vec)) &&
              STEP(cudaMalloc((void **)&C->vec, vec)) &&
              STEP(cudaMalloc((void **)&C->dev_in, sizeof(float) * C->in_floats)) &&
              STEP(cudaMalloc((void **)&C->dev_out, sizeof(float) * C->out_floats)) &&
              STEP(cudaMallocHost((void **)&C->host_in, sizeof(float) * C->in_floats)) &&
              STEP(cudaMallocHost((void **)&C->host_out, sizeof(float) * C->out_floats));
    /* attention: one head's scores at a time */
    size_t square = (size_t)max_batch * CUDA_MAX_AREA * CUDA_MAX_AREA;
    ok = ok && (!W->attention ||
                (STEP(cudaMalloc((void **)&C->scores, sizeof(float) * square)) &&
                 (!W->fp16 || STEP(cudaMalloc(&C->probs, W->elt * square)))));
    C->lv = ok ? calloc((size_t)W->depth + 1, sizeof *C->lv) : NULL;
    for (int l = 0; C->lv && ok && l <= W->depth; l++)
        ok = STEP(cudaMalloc(&C->lv[l].x, act)) && STEP(cudaMalloc(&C->lv[l].a, act)) &&
             STEP(cudaMalloc(&C->lv[l].t, act)) && STEP(cudaMalloc(&C->lv[l].g, act));
#undef STEP
    if (!ok) {
        cudaGetLastError();
        snprintf(err, (size_t)err_len, "%s: cuda backend: a batch of %d: %s failed: %s",
                 d->source, max_batch, call, cudaGetErrorString(e));
        cuda_context_free(C);
        return NULL;
    }
    if (!C->lv) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: out of host memory", d->source);
        cuda_context_free(C);
        return NULL;
    }
    cublasStatus_t bs = cublasCreate(&C->blas);
    /* cublasSetStream resets the workspace, so the workspace comes after it; a workspace of
     * our own keeps cuBLAS from allocating during a graph capture */
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = cublasSetStream(C->blas, C->stream);
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = cublasSetWorkspace(C->blas, C->blas_ws, C->blas_ws_bytes);
    cudnnStatus_t ds = cudnnCreate(&C->dnn);
    if (ds == CUDNN_STATUS_SUCCESS)
        ds = cudnnSetStream(C->dnn, C->stream);
    if (ds == CUDNN_STATUS_SUCCESS)
        ds = cudnnCreateActivationDescriptor(&C->relu);
    if (ds == CUDNN_STATUS_SUCCESS)
        ds = cudnnSetActivationDescriptor(C->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN,
                                          0.0);
    if (bs != CUBLAS_STATUS_SUCCESS || ds != CUDNN_STATUS_SUCCESS) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: cuBLAS: %s, cuDNN: %s", d->source,
                 cublasGetStatusString(bs), cudnnGetErrorString(ds));
        cuda_context_free(C);
        return NULL;
    }
    return C;
}

/* Sizes in floats of the staged inputs and outputs of one batch. */
typedef struct cuda_io {
    size_t spatial, global, meta, out;
} cuda_io;

/* Upload, forward, download, all queued on C->stream. */
static bool run_queued(cuda_ctx *C, const cuda_io *io)
{
    const float *spatial = C->dev_in, *global = spatial + io->spatial;
    const float *meta = io->meta ? global + io->global : NULL;
    int total = nn_cuda_prof_begin(C, CUDA_PROF_TOTAL);
    int copy = nn_cuda_prof_begin(C, CUDA_PROF_COPY);
    CUDA_CHECK(C, cudaMemcpyAsync(C->dev_in, C->host_in,
                                  sizeof(float) * (io->spatial + io->global + io->meta),
                                  cudaMemcpyHostToDevice, C->stream));
    nn_cuda_prof_end(C, copy);
    bool ok = C->W->d->family == NN_FAMILY_KATA ? nn_cuda_kata_forward(C, spatial, global, meta)
                                                : nn_cuda_lz_forward(C, spatial);
    if (!ok)
        return false;
    copy = nn_cuda_prof_begin(C, CUDA_PROF_COPY);
    CUDA_CHECK(C, cudaMemcpyAsync(C->host_out, C->dev_out, sizeof(float) * io->out,
                                  cudaMemcpyDeviceToHost, C->stream));
    nn_cuda_prof_end(C, copy);
    nn_cuda_prof_end(C, total);
    return true;
}

/* Captures run_queued into P->graph; on failure turns graphs off for C and says so. */
static void capture(cuda_ctx *C, cuda_plan *P, const cuda_io *io)
{
    cudaGraph_t g = NULL;
    char why[sizeof C->err] = "";
    /* relaxed: a library that allocates on this thread during the capture does no harm */
    cudaError_t e = cudaStreamBeginCapture(C->stream, cudaStreamCaptureModeRelaxed);
    if (e == cudaSuccess) {
        C->capturing = true;
        if (!run_queued(C, io))
            snprintf(why, sizeof why, "%s", C->err);
        C->capturing = false;
        e = cudaStreamEndCapture(C->stream, &g);   /* ends the capture after a failure too */
    }
    if (!why[0] && e == cudaSuccess)
        e = cudaGraphInstantiate(&P->graph, g, 0);
    if (g)
        cudaGraphDestroy(g);
    if (!why[0] && e == cudaSuccess)
        return;
    if (!why[0])
        snprintf(why, sizeof why, "%s", cudaGetErrorString(e));
    P->graph = NULL;
    cudaGetLastError();
    fprintf(stderr, "nn: cuda: CUDA graph capture failed (%s); running without graphs\n", why);
    C->err[0] = '\0';
    C->graphs = false;
}

/* The plan of a batch shape, made on its first use; NULL when out of memory. A context meets a
 * few shapes per batch size (board shapes and their transposes), so a linear search does. */
static cuda_plan *plan_get(cuda_ctx *C, int n, int width, int height, bool meta)
{
    for (int i = 0; i < C->num_plans; i++) {
        cuda_plan *P = C->plans[i];
        if (P->n == n && P->width == width && P->height == height && P->meta == meta)
            return P;
    }
    if (C->num_plans == C->cap_plans) {
        int cap = C->cap_plans ? 2 * C->cap_plans : 16;
        cuda_plan **grown = realloc(C->plans, sizeof *grown * (size_t)cap);
        if (!grown)
            return NULL;
        C->plans = grown;
        C->cap_plans = cap;
    }
    cuda_plan *P = calloc(1, sizeof *P);
    if (P) {
        *P = (cuda_plan){.n = n, .height = height, .width = width, .meta = meta};
        C->plans[C->num_plans++] = P;
    }
    return P;
}

static bool forward_device(cuda_ctx *C, cuda_plan *P, const cuda_io *io)
{
    CUDA_CHECK(C, cudaSetDevice(C->W->opt.device));
    C->plan = P;
    C->num_prof = 0;
    if (C->graphs && P->runs > 0 && !P->graph)
        capture(C, P, io);
    if (P->graph)
        CUDA_CHECK(C, cudaGraphLaunch(P->graph, C->stream));
    else if (!run_queued(C, io))
        return false;
    CUDA_CHECK(C, cudaStreamSynchronize(C->stream));
    if (C->profile && P->runs > 0)   /* the first run searches algorithms: not counted */
        prof_collect(C, P->n);
    C->num_prof = 0;
    P->runs++;
    return true;
}

static bool cuda_forward(void *ctx, const nn_backend_batch *b, char *err, int err_len)
{
    cuda_ctx *C = ctx;
    const cuda_weights *W = C->W;
    bool kata = W->d->family == NN_FAMILY_KATA;
    int n = b->n, width = b->width, height = b->height;
    if (n < 1 || n > C->max_batch || width < 1 || width > CUDA_MAX_SIZE || height < 1 ||
        height > CUDA_MAX_SIZE ||
        (!kata && (width != NN_LZ_BOARD_SIZE || height != NN_LZ_BOARD_SIZE))) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: batch of %d on %dx%d (context takes "
                 "1..%d positions, boards up to 19x19)", W->d->source, n, width, height,
                 C->max_batch);
        return false;
    }
    size_t area = (size_t)width * height, nn = (size_t)n;
    bool meta = kata && W->kata.has_meta && b->meta;
    cuda_io io = {.spatial = nn * (size_t)W->num_spatial * area,
                  .global = nn * (size_t)W->num_global,
                  .meta = meta ? nn * (size_t)W->num_meta : 0};
    size_t oc = kata ? (size_t)W->kata.policy_channels : 0;
    size_t sc = kata ? (size_t)W->kata.score_channels : 0;
    /* outputs packed back to back in backend.h's order */
    float *o = C->dev_out;
    if (kata) {
        C->out = (cuda_outputs){.policy = o, .pass = o + nn * oc * area};
        C->out.value = C->out.pass + nn * oc;
        C->out.score = C->out.value + nn * 3;
        C->out.ownership = C->out.score + nn * sc;
        io.out = nn * (oc * area + oc + 3 + sc + area);
    } else {
        C->out = (cuda_outputs){.policy = o, .value = o + nn * NN_LZ_POLICY_OUTPUTS};
        io.out = nn * (NN_LZ_POLICY_OUTPUTS + 1);
    }
    cuda_plan *P = plan_get(C, n, width, height, meta);
    if (!P) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: out of host memory", W->d->source);
        return false;
    }
    memcpy(C->host_in, b->spatial, sizeof(float) * io.spatial);
    if (io.global)
        memcpy(C->host_in + io.spatial, b->global, sizeof(float) * io.global);
    if (io.meta)
        memcpy(C->host_in + io.spatial + io.global, b->meta, sizeof(float) * io.meta);
    C->err[0] = '\0';
    if (!forward_device(C, P, &io)) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: %s", W->d->source, C->err);
        return false;
    }
    const float *h = C->host_out;
    if (!kata) {
        memcpy(b->policy, h, sizeof(float) * nn * NN_LZ_POLICY_OUTPUTS);
        memcpy(b->value, h + nn * NN_LZ_POLICY_OUTPUTS, sizeof(float) * nn);
        return true;
    }
    memcpy(b->policy, h, sizeof(float) * nn * oc * area);
    h += nn * oc * area;
    memcpy(b->pass, h, sizeof(float) * nn * oc);
    h += nn * oc;
    memcpy(b->value, h, sizeof(float) * nn * 3);
    h += nn * 3;
    memcpy(b->score, h, sizeof(float) * nn * sc);
    h += nn * sc;
    memcpy(b->ownership, h, sizeof(float) * nn * area);
    return true;
}

const nn_backend_ops nn_cuda_backend = {
    .name = "cuda",
    .available = cuda_available,
    .load = cuda_load,
    .free = cuda_free,
    .context_new = cuda_context_new,
    .context_free = cuda_context_free,
    .forward = cuda_forward,
};
