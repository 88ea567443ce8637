/* bench/cuda/bench_conv.c -- shido's implicit-GEMM convolution (nn/cuda/kernels/conv_igemm.h)
 * against cuDNN on the trunk convolutions of the standard nets (3x3 and 1x1, c -> c, 19x19,
 * NHWC fp16, fp32 accumulation). For every shape it first checks the two against each other on
 * the same inputs and weights, then times with CUDA events after warm-up:
 *   igemm      our kernel with a fused scale + bias + ReLU epilogue, heuristic tile choice
 *   cfg0..N    every tile configuration forced (to tune the heuristic; see conv_igemm.cu)
 *   cudnn      cudnnConvolutionForward with the fastest algorithm cudnnFind reports
 *   cudnn+ep   the same followed by our standalone epilogue (what the cuDNN path of the
 *              backend runs)
 * and prints one markdown row a shape: milliseconds, TFLOP/s and the fraction of the device's
 * dense fp16 tensor-core peak (known for H100 and H200; --peak TFLOPS overrides).
 *
 * Usage: build-cuda/bench_cuda_conv [--batch 1,16,64,256] [--peak TFLOPS] [--ms-per-timing MS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "nn/cuda/kernels/conv_igemm.h"

#define MAX_BATCHES 8
#define BOARD 19

#define CUDA_OK(call)                                                                         \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                    cudaGetErrorString(e_));                                                  \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CUDNN_OK(call)                                                                        \
    do {                                                                                      \
        cudnnStatus_t s_ = (call);                                                            \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                    cudnnGetErrorString(s_));                                                 \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

/* The trunk widths of the standard nets. */
static const struct {
    const char *net;
    int c;
} trunks[] = {{"b6c96", 96}, {"lz40x256", 256}, {"b18c384nbt", 384}, {"b28c512nbt", 512}};
#define NUM_TRUNKS ((int)(sizeof trunks / sizeof trunks[0]))

static uint64_t rng = 0x243f6a8885a308d3ull;

static float uniform(float lo, float hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (float)((double)(rng >> 11) / 9007199254740992.0) * (hi - lo);
}

/* IEEE half, round to nearest even (finite inputs of modest size only: test data). */
static uint16_t half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax < 0x38800000u) {
        float a;
        memcpy(&a, &ax, sizeof a);
        return sign | (uint16_t)rintf(a * 16777216.0f);
    }
    uint32_t h = ((ax >> 23) - 112u) << 10 | (ax & 0x7fffffu) >> 13;
    uint32_t rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return sign | (uint16_t)h;
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* What one timing loop runs. */
typedef enum { RUN_IGEMM, RUN_CUDNN, RUN_CUDNN_EP } run_kind;

typedef struct shape_ctx {
    int n, c, k;
    void *in, *out, *w_igemm, *w_cudnn, *workspace;
    size_t workspace_bytes;
    cudnnHandle_t dnn;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    cudnnConvolutionFwdAlgo_t algo;
    nn_cuda_epilogue ep, ep_none;
} shape_ctx;

static void run_once(shape_ctx *s, run_kind kind, int config)
{
    if (kind == RUN_IGEMM) {
        CUDA_OK(nn_cuda_conv_igemm_f16_config(s->in, s->w_igemm, s->out, s->n, BOARD, BOARD, s->c,
                                              s->c, s->k, &s->ep, config, 0));
        return;
    }
    const float one = 1.0f, zero = 0.0f;
    CUDNN_OK(cudnnConvolutionForward(s->dnn, &one, s->x_desc, s->in, s->w_desc, s->w_cudnn,
                                     s->conv_desc, s->algo, s->workspace, s->workspace_bytes,
                                     &zero, s->y_desc, s->out));
    if (kind == RUN_CUDNN_EP)
        CUDA_OK(nn_cuda_epilogue_f16(s->out, s->n, BOARD, BOARD, s->c, &s->ep, 0));
}

/* Mean milliseconds of one run: 3 warm-up runs, then enough repetitions for about ms_target. */
static double time_ms(shape_ctx *s, run_kind kind, int config, double ms_target)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        run_once(s, kind, config);
    CUDA_OK(cudaEventRecord(a, 0));
    run_once(s, kind, config);
    CUDA_OK(cudaEventRecord(b, 0));
    CUDA_OK(cudaEventSynchronize(b));
    float first;
    CUDA_OK(cudaEventElapsedTime(&first, a, b));
    int reps = first > 0 ? (int)(ms_target / first) : 1000;
    reps = reps < 5 ? 5 : reps > 1000 ? 1000 : reps;
    CUDA_OK(cudaEventRecord(a, 0));
    for (int i = 0; i < reps; i++)
        run_once(s, kind, config);
    CUDA_OK(cudaEventRecord(b, 0));
    CUDA_OK(cudaEventSynchronize(b));
    float total;
    CUDA_OK(cudaEventElapsedTime(&total, a, b));
    CUDA_OK(cudaEventDestroy(a));
    CUDA_OK(cudaEventDestroy(b));
    return (double)total / reps;
}

/* Largest |igemm - cudnn| relative to the largest |cudnn|, both without epilogue. */
static double compare_with_cudnn(shape_ctx *s, size_t out_count)
{
    uint16_t *a = malloc(out_count * 2), *b = malloc(out_count * 2);
    if (!a || !b) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    CUDA_OK(nn_cuda_conv_igemm_f16(s->in, s->w_igemm, s->out, s->n, BOARD, BOARD, s->c, s->c,
                                   s->k, &s->ep_none, 0));
    CUDA_OK(cudaMemcpy(a, s->out, out_count * 2, cudaMemcpyDeviceToHost));
    run_once(s, RUN_CUDNN, -1);
    CUDA_OK(cudaMemcpy(b, s->out, out_count * 2, cudaMemcpyDeviceToHost));
    double worst = 0, peak = 0;
    for (size_t i = 0; i < out_count; i++) {
        double x = half_to_float(a[i]), y = half_to_float(b[i]);
        double d = isnan(x) || isnan(y) ? INFINITY : fabs(x - y);
        worst = d > worst ? d : worst;
        peak = fabs(y) > peak ? fabs(y) : peak;
    }
    free(a);
    free(b);
    return peak > 0 ? worst / peak : worst;
}

static void bench_shape(const char *net, int c, int k, int n, double peak_tflops, double ms_target)
{
    shape_ctx s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.c = c;
    s.k = k;
    const size_t points = (size_t)n * BOARD * BOARD;
    const size_t act_count = points * c, w_count = (size_t)c * c * k * k;

    /* inputs in [-1, 1], weights ~ 1/sqrt(fan-in): outputs of order 1, as in a trained trunk */
    uint16_t *in16 = malloc(act_count * 2), *wk = malloc(w_count * 2);
    float *w = malloc(w_count * sizeof *w), *scale = malloc(c * sizeof *scale),
          *bias = malloc(c * sizeof *bias);
    if (!in16 || !wk || !w || !scale || !bias) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < act_count; i++)
        in16[i] = half_from_float(uniform(-1, 1));
    float ws = sqrtf(3.0f / (float)(c * k * k));
    for (size_t i = 0; i < w_count; i++)
        w[i] = half_to_float(half_from_float(uniform(-ws, ws)));
    /* cuDNN's NHWC filter is KRSC: [c_out][ky][kx][c_in] */
    for (int o = 0; o < c; o++)
        for (int i = 0; i < c; i++)
            for (int t = 0; t < k * k; t++)
                wk[((size_t)o * k * k + t) * c + i] =
                    half_from_float(w[((size_t)o * c + i) * k * k + t]);
    for (int i = 0; i < c; i++) {
        scale[i] = uniform(0.5f, 1.5f);
        bias[i] = uniform(-0.5f, 0.5f);
    }

    CUDA_OK(cudaMalloc(&s.in, act_count * 2));
    CUDA_OK(cudaMalloc(&s.out, act_count * 2));
    CUDA_OK(cudaMalloc(&s.w_cudnn, w_count * 2));
    CUDA_OK(cudaMalloc(&s.w_igemm, nn_cuda_conv_igemm_weight_bytes(k, c, c)));
    void *scale_dev, *bias_dev;
    CUDA_OK(cudaMalloc(&scale_dev, c * sizeof(float)));
    CUDA_OK(cudaMalloc(&bias_dev, c * sizeof(float)));
    CUDA_OK(cudaMemcpy(s.in, in16, act_count * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(s.w_cudnn, wk, w_count * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(scale_dev, scale, c * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(bias_dev, bias, c * sizeof(float), cudaMemcpyHostToDevice));
    char err[256];
    if (!nn_cuda_conv_igemm_prepare_f16(w, k, c, c, s.w_igemm, err, (int)sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    s.ep.scale = scale_dev;
    s.ep.bias = bias_dev;
    s.ep.act = 1;

    CUDNN_OK(cudnnCreate(&s.dnn));
    CUDNN_OK(cudnnCreateTensorDescriptor(&s.x_desc));
    CUDNN_OK(cudnnCreateTensorDescriptor(&s.y_desc));
    CUDNN_OK(cudnnCreateFilterDescriptor(&s.w_desc));
    CUDNN_OK(cudnnCreateConvolutionDescriptor(&s.conv_desc));
    CUDNN_OK(cudnnSetTensor4dDescriptor(s.x_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, n, c, BOARD,
                                        BOARD));
    CUDNN_OK(cudnnSetTensor4dDescriptor(s.y_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, n, c, BOARD,
                                        BOARD));
    CUDNN_OK(cudnnSetFilter4dDescriptor(s.w_desc, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, c, c, k, k));
    CUDNN_OK(cudnnSetConvolution2dDescriptor(s.conv_desc, k / 2, k / 2, 1, 1, 1, 1,
                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_OK(cudnnSetConvolutionMathType(s.conv_desc, CUDNN_TENSOR_OP_MATH));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    CUDNN_OK(cudnnFindConvolutionForwardAlgorithm(s.dnn, s.x_desc, s.w_desc, s.conv_desc,
                                                  s.y_desc, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                  &found, perf));
    int best = -1;
    for (int i = 0; i < found && best < 0; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS)
            best = i;
    if (best < 0) {
        fprintf(stderr, "%s: cuDNN found no algorithm for %dx%d c%d batch %d\n", net, k, k, c, n);
        exit(1);
    }
    s.algo = perf[best].algo;
    s.workspace_bytes = perf[best].memory;
    if (s.workspace_bytes)
        CUDA_OK(cudaMalloc(&s.workspace, s.workspace_bytes));

    double diff = compare_with_cudnn(&s, act_count);
    double gflop = 2.0 * (double)points * c * c * k * k * 1e-9;
    double t_igemm = time_ms(&s, RUN_IGEMM, -1, ms_target);
    int configs = nn_cuda_conv_igemm_config_count(), best_cfg = 0;
    double t_best = INFINITY;
    char cfg_cols[256] = "";
    size_t used = 0;
    for (int cfg = 0; cfg < configs; cfg++) {
        double t = time_ms(&s, RUN_IGEMM, cfg, ms_target);
        if (t < t_best) {
            t_best = t;
            best_cfg = cfg;
        }
        used += (size_t)snprintf(cfg_cols + used, sizeof cfg_cols - used, " %.3f |", t);
    }
    double t_dnn = time_ms(&s, RUN_CUDNN, -1, ms_target);
    double t_dnn_ep = time_ms(&s, RUN_CUDNN_EP, -1, ms_target);
    double tf = gflop / t_igemm, tf_dnn = gflop / t_dnn;   /* GFLOP / ms = TFLOP/s */
    char pk[32] = "n/a", pk_dnn[32] = "n/a";
    if (peak_tflops > 0) {
        snprintf(pk, sizeof pk, "%.1f%%", 100 * tf / peak_tflops);
        snprintf(pk_dnn, sizeof pk_dnn, "%.1f%%", 100 * tf_dnn / peak_tflops);
    }
    printf("| %s | %dx%d c%d | %d | %.3f | %.1f | %s |%s %d | %.3f | %.1f | %s | algo %d | %.3f | "
           "%.2f | %.1e |\n",
           net, k, k, c, n, t_igemm, tf, pk, cfg_cols, best_cfg, t_dnn, tf_dnn, pk_dnn,
           (int)s.algo, t_dnn_ep, t_dnn_ep / t_igemm, diff);
    fflush(stdout);
    if (diff > 2e-2)
        fprintf(stderr, "WARNING: %s %dx%d c%d batch %d: igemm and cuDNN differ by %.2e of the "
                "output range\n", net, k, k, c, n, diff);

    cudnnDestroyConvolutionDescriptor(s.conv_desc);
    cudnnDestroyFilterDescriptor(s.w_desc);
    cudnnDestroyTensorDescriptor(s.x_desc);
    cudnnDestroyTensorDescriptor(s.y_desc);
    cudnnDestroy(s.dnn);
    cudaFree(s.workspace);
    cudaFree(s.in);
    cudaFree(s.out);
    cudaFree(s.w_cudnn);
    cudaFree(s.w_igemm);
    cudaFree(scale_dev);
    cudaFree(bias_dev);
    free(in16);
    free(wk);
    free(w);
    free(scale);
    free(bias);
}

/* Dense fp16 tensor-core peak (TFLOP/s, fp32 accumulation) by device name; 0 when unknown. */
static double known_peak(const char *name)
{
    if (strstr(name, "H100") && (strstr(name, "PCIe") || strstr(name, "PCIE")))
        return 756.0;
    if (strstr(name, "H100") || strstr(name, "H200") || strstr(name, "H800"))
        return 989.4;
    return 0;
}

int main(int argc, char **argv)
{
    int batches[MAX_BATCHES] = {1, 16, 64, 256}, num_batches = 4;
    double peak = -1, ms_target = 25;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            num_batches = 0;
            for (char *tok = strtok(argv[++i], ","); tok && num_batches < MAX_BATCHES;
                 tok = strtok(NULL, ","))
                batches[num_batches++] = atoi(tok);
        } else if (!strcmp(argv[i], "--peak") && i + 1 < argc) {
            peak = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--ms-per-timing") && i + 1 < argc) {
            ms_target = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_conv [--batch 1,16,64,256] [--peak TFLOPS] "
                    "[--ms-per-timing MS]\n");
            return 2;
        }
    }
    for (int i = 0; i < num_batches; i++)
        if (batches[i] < 1 || batches[i] > 4096) {
            fprintf(stderr, "bench_conv: batch sizes must be 1..4096\n");
            return 2;
        }
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    if (peak < 0)
        peak = known_peak(prop.name);
    printf("device: %s, %d SMs, cuDNN %zu; dense fp16 peak %s%.1f TFLOP/s\n\n", prop.name,
           prop.multiProcessorCount, cudnnGetVersion(), peak > 0 ? "" : "unknown ", peak);
    int configs = nn_cuda_conv_igemm_config_count();
    printf("| net | conv | batch | igemm ms | TFLOP/s | of peak |");
    for (int cfg = 0; cfg < configs; cfg++)
        printf(" cfg%d ms |", cfg);
    printf(" best cfg | cuDNN ms | TFLOP/s | of peak | cuDNN algo | cuDNN+ep ms | "
           "cuDNN+ep / igemm | max diff |\n|---|---|---|---|---|---|");
    for (int cfg = 0; cfg < configs; cfg++)
        printf("---|");
    printf("---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    for (int t = 0; t < NUM_TRUNKS; t++)
        for (int k = 3; k >= 1; k -= 2)
            for (int b = 0; b < num_batches; b++)
                bench_shape(trunks[t].net, trunks[t].c, k, batches[b], peak, ms_target);
    return 0;
}
