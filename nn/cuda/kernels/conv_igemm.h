/* nn/cuda/kernels/conv_igemm.h -- our own implicit-GEMM tensor-core convolution (3x3 and 1x1,
 * stride 1, zero "same" padding, tensors up to 19x19) with a fused epilogue, and the
 * epilogue on its own for the outputs of cuDNN and cuBLAS. Plain C declarations; the kernels
 * are in conv_igemm.cu and epilogue.cu.
 *
 * Layouts: activations NHWC, in[n][height][width][c_in], out[n][height][width][c_out]; "_f16"
 * buffers hold IEEE half floats (uint16_t storage, __half in the kernels), "_f32" buffers floats.
 * Per-channel vectors (scale, bias) are floats in device memory. mask[n][height*width] is 1 on
 * the points of each position's board and 0 elsewhere (KataGo's board mask), or NULL (all 1).
 *
 * The epilogue, per output element v (the convolution's float accumulator, or the value already
 * in out for nn_cuda_epilogue_*):
 *     v = v * scale[c] + bias[c]                   (scale NULL: 1; bias NULL: 0)
 *     v = v + bias_nc[n][c]                        (bias_nc NULL: 0; the gpool branch's bias)
 *     v = v + residual[n][y][x][c]                 (residual NULL: nothing)
 *     v = act(v) * mask[n][y*width+x]
 *     out = v
 *     out2 = act2(v * scale2[c] + bias2[c]) * mask (out2 NULL: nothing; the next pre-activation
 *                                                    batch norm of a residual trunk; scale2
 *                                                    NULL: 1, bias2 NULL: 0)
 * residual may alias out (in place x += conv(...)); out2 must not alias anything, nor out the
 * convolution's input.
 */
#ifndef SHIDO_NN_CUDA_CONV_IGEMM_H
#define SHIDO_NN_CUDA_CONV_IGEMM_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Activations, numbered as nn_activation in weights/desc.h (NN_ACT_IDENTITY 0, RELU 1, MISH 2,
 * SILU 3). */
typedef struct nn_cuda_epilogue {
    const float *scale, *bias;     /* [c_out] or NULL */
    const float *bias_nc;          /* [n][c_out] or NULL */
    const void *residual;          /* same shape and type as out, or NULL */
    int act;
    const float *mask;             /* [n][height*width] or NULL */
    void *out2;                    /* same shape and type as out, or NULL */
    const float *scale2, *bias2;   /* [c_out] or NULL; used only with out2 */
    int act2;
} nn_cuda_epilogue;

/* Bytes of the device weight buffer nn_cuda_conv_igemm_prepare_f16 fills for a k x k (k = 1 or
 * 3) convolution from c_in to c_out channels (padded as the kernel needs). */
size_t nn_cuda_conv_igemm_weight_bytes(int k, int c_in, int c_out);

/* Converts host weights w[c_out][c_in][k][k] (OIHW floats, as weights/desc.h holds them) to half
 * precision in the kernel's layout and copies them into dev_w (weight_bytes bytes of device
 * memory, 16-byte aligned); also sets the kernels' attributes on the current device, so that
 * launches make no set-up calls (they may be captured into CUDA graphs). Returns false with a
 * message in err (a CUDA error, an unsupported shape, a weight beyond half precision). */
bool nn_cuda_conv_igemm_prepare_f16(const float *w, int k, int c_in, int c_out, void *dev_w,
                                    char *err, int err_len);

/* Whether the implicit-GEMM kernel takes this shape (k 1 or 3, any c_in/c_out >= 1, height and
 * width 1..19, n >= 1); callers use cuDNN otherwise. */
bool nn_cuda_conv_igemm_supported(int k, int c_in, int c_out, int height, int width);

/* out = epilogue(conv(in, w)) on stream s. Returns the launch status (cudaSuccess when the
 * kernel was queued). */
cudaError_t nn_cuda_conv_igemm_f16(const void *in, const void *dev_w, void *out, int n,
                                   int height, int width, int c_in, int c_out, int k,
                                   const nn_cuda_epilogue *ep, cudaStream_t s);

/* The epilogue alone, in place on out (n x height x width x c): for convolutions done by cuDNN
 * or matmuls done by cuBLAS. */
cudaError_t nn_cuda_epilogue_f16(void *out, int n, int height, int width, int c,
                                 const nn_cuda_epilogue *ep, cudaStream_t s);
cudaError_t nn_cuda_epilogue_f32(float *out, int n, int height, int width, int c,
                                 const nn_cuda_epilogue *ep, cudaStream_t s);

/* For bench/cuda: nn_cuda_conv_igemm_f16 with tile configuration `config` forced (0 .. count-1,
 * see conv_igemm.cu; -1 = the heuristic nn_cuda_conv_igemm_f16 uses). */
int nn_cuda_conv_igemm_config_count(void);
cudaError_t nn_cuda_conv_igemm_f16_config(const void *in, const void *dev_w, void *out, int n,
                                          int height, int width, int c_in, int c_out, int k,
                                          const nn_cuda_epilogue *ep, int config, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Device side of the epilogue, shared by conv_igemm.cu (fused, on the accumulator tile) and
 * epilogue.cu (standalone), so that both paths round the same way. */
#include <cuda_fp16.h>

static __device__ __forceinline__ float nn_cuda_ep_activate(float v, int act)
{
    if (act == 1)
        return fmaxf(v, 0.0f);
    if (act == 2 && v <= 20.0f) {
        /* mish: v * tanh(log1p(e^v)) = v * n / (n + 2) with n = e^v (e^v + 2); no log or tanh,
         * finite for every v (e^v underflows to 0 for very negative v, giving -0) */
        float e = expf(v);
        float n = e * (e + 2.0f);
        return v * __fdividef(n, n + 2.0f);
    }
    if (act == 3)
        return v / (1.0f + expf(-v)); /* SiLU: -0 where e^-v overflows */
    return v;
}

static __device__ __forceinline__ float nn_cuda_ep_load(const float *p)
{
    return *p;
}

static __device__ __forceinline__ float nn_cuda_ep_load(const __half *p)
{
    return __half2float(*p);
}

static __device__ __forceinline__ void nn_cuda_ep_store(float *p, float v)
{
    *p = v;
}

static __device__ __forceinline__ void nn_cuda_ep_store(__half *p, float v)
{
    *p = __float2half_rn(v);
}

/* Loads/stores V consecutive elements at p (aligned to V elements' bytes by the caller):
 * one 16-byte access for 8 halves or 4 floats, one 4-byte access for 2 halves. */
template <int V, typename T>
static __device__ __forceinline__ void nn_cuda_ep_load_vec(const T *p, float (&v)[V])
{
    if constexpr (V == 8 && sizeof(T) == 2) {
        uint4 raw = *reinterpret_cast<const uint4 *>(p);
        const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
        for (int i = 0; i < 4; i++) {
            float2 f = __half22float2(h[i]);
            v[2 * i] = f.x;
            v[2 * i + 1] = f.y;
        }
    } else if constexpr (V == 2 && sizeof(T) == 2) {
        float2 f = __half22float2(*reinterpret_cast<const __half2 *>(p));
        v[0] = f.x;
        v[1] = f.y;
    } else if constexpr (V == 4 && sizeof(T) == 4) {
        float4 f = *reinterpret_cast<const float4 *>(p);
        v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    } else {
        for (int i = 0; i < V; i++)
            v[i] = nn_cuda_ep_load(p + i);
    }
}

template <int V, typename T>
static __device__ __forceinline__ void nn_cuda_ep_store_vec(T *p, const float (&v)[V])
{
    if constexpr (V == 8 && sizeof(T) == 2) {
        uint4 raw;
        __half2 *h = reinterpret_cast<__half2 *>(&raw);
        for (int i = 0; i < 4; i++)
            h[i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
        *reinterpret_cast<uint4 *>(p) = raw;
    } else if constexpr (V == 2 && sizeof(T) == 2) {
        *reinterpret_cast<__half2 *>(p) = __floats2half2_rn(v[0], v[1]);
    } else if constexpr (V == 4 && sizeof(T) == 4) {
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        for (int i = 0; i < V; i++)
            nn_cuda_ep_store(p + i, v[i]);
    }
}

/* The per-channel factors of an epilogue for channels c .. c+V-1: loaded once by a thread that
 * keeps to the same channels (the standalone epilogue), or for each group (the convolution's
 * tile). Entries whose vector is NULL are left unset and never read. */
template <int V> struct nn_cuda_ep_channels {
    float scale[V], bias[V], scale2[V], bias2[V];
};

template <int V>
static __device__ __forceinline__ void nn_cuda_ep_load_channels(const nn_cuda_epilogue &ep, int c,
                                                                nn_cuda_ep_channels<V> &p)
{
    for (int i = 0; i < V; i++) {
        if (ep.scale)
            p.scale[i] = __ldg(ep.scale + c + i);
        if (ep.bias)
            p.bias[i] = __ldg(ep.bias + c + i);
        if (ep.out2 && ep.scale2)
            p.scale2[i] = __ldg(ep.scale2 + c + i);
        if (ep.out2 && ep.bias2)
            p.bias2[i] = __ldg(ep.bias2 + c + i);
    }
}

/* Applies the epilogue to v, the values of channels c .. c+V-1 of output point m (m = image *
 * height*width + point, so m also indexes mask) with c_out channels per point, and writes out (and
 * out2); p holds the channels' factors, e = m * c_out + c is the element offset in out, residual
 * and out2. store_main false leaves out unwritten: the standalone epilogue's choice where the
 * main output is unchanged. */
template <int V, typename T>
static __device__ __forceinline__ void nn_cuda_ep_apply(const nn_cuda_epilogue &ep,
                                                        const nn_cuda_ep_channels<V> &p,
                                                        float (&v)[V], unsigned m, unsigned img,
                                                        int c, int c_out, unsigned e, T *out,
                                                        bool store_main = true)
{
    for (int i = 0; i < V; i++) {
        if (ep.scale)
            v[i] *= p.scale[i];
        if (ep.bias)
            v[i] += p.bias[i];
        if (ep.bias_nc)
            v[i] += __ldg(ep.bias_nc + (size_t)img * (unsigned)c_out + c + i);
    }
    if (ep.residual) {
        float r[V];
        nn_cuda_ep_load_vec<V>(static_cast<const T *>(ep.residual) + e, r);
        for (int i = 0; i < V; i++)
            v[i] += r[i];
    }
    float mask = ep.mask ? __ldg(ep.mask + m) : 1.0f;
    for (int i = 0; i < V; i++)
        v[i] = nn_cuda_ep_activate(v[i], ep.act) * mask;
    if (store_main)
        nn_cuda_ep_store_vec<V>(out + e, v);
    if (ep.out2) {
        for (int i = 0; i < V; i++) {
            float w = v[i];
            if (ep.scale2)
                w *= p.scale2[i];
            if (ep.bias2)
                w += p.bias2[i];
            v[i] = nn_cuda_ep_activate(w, ep.act2) * mask;
        }
        nn_cuda_ep_store_vec<V>(static_cast<T *>(ep.out2) + e, v);
    }
}

/* The same with the factors loaded here: the convolution's epilogue, group by group. */
template <int V, typename T>
static __device__ __forceinline__ void nn_cuda_ep_apply(const nn_cuda_epilogue &ep, float (&v)[V],
                                                        unsigned m, unsigned img, int c,
                                                        int c_out, unsigned e, T *out)
{
    nn_cuda_ep_channels<V> p;
    nn_cuda_ep_load_channels<V>(ep, c, p);
    nn_cuda_ep_apply<V>(ep, p, v, m, img, c, c_out, e, out);
}
#endif

#endif
