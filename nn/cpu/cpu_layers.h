/* nn/cpu/cpu_layers.h -- batched float32 layers of the "cpu" backend (cpu_backend.c). Each is
 * tested against its nn/ref twin (tests/test_nn.c).
 *
 * Activations are NHWC over a whole batch, x[n][height][width][c] (each side 1..19): channels
 * innermost, so every
 * tile transform, batch norm and activation is plain SIMD over contiguous channels, and a 1x1
 * convolution of the whole batch is one matrix product. (The backend's own inputs and outputs stay
 * NCHW, as nn/backend.h lays them out; nn_cpu_transpose converts at the edges.)
 *
 * 3x3 convolutions use Winograd F(4x4, 3x3) (Lavin & Gray 2015): every 6x6 input tile d (4x4
 * outputs plus a 1-point halo, tiles overlapping by 2) becomes B^T d B, the 3x3 filter g becomes
 * G g G^T, and the 36 points of the transformed tiles are 36 independent matrix products
 * M[k][tiles][c_out] = V[k][tiles][c_in] U[k][c_in][c_out] over every tile of the whole batch:
 * 2.25x fewer multiplies than direct convolution, in large shapes. An 8 x 32 AVX-512 or a 6 x 16
 * AVX2/FMA kernel computes them from U packed at load and V as the input transform writes it
 * (OpenBLAS would pack both on every call); the im2col and 1x1 convolutions run on the same
 * kernels over weights packed the same way. The output
 * transform A^T m A applies the layer's epilogue (bias, batch norm, residual add, activation)
 * while each value is in registers; the input transform can apply the preceding batch norm and
 * activation (KataGo's pre-activation blocks) the same way. Other kernels go through im2col.
 */
#ifndef SHIDO_NN_CPU_CPU_LAYERS_H
#define SHIDO_NN_CPU_CPU_LAYERS_H

#include <stdbool.h>
#include <stddef.h>

#include "weights/desc.h"

#define NN_WINO_OUT 4                          /* output tile side */
#define NN_WINO_IN 6                           /* input tile side */
#define NN_WINO_POINTS (NN_WINO_IN * NN_WINO_IN)
#define NN_CPU_MAX_CHANNELS 2048               /* widest layer the backend takes */
#define NN_WINO_MR 6                           /* rows (tiles, points) per kernel call */
#define NN_WINO_MR_512 8                       /* the same for the AVX-512 kernel */
#define NN_WINO_NR 16                          /* output channels per packed filter panel */

/* y = act(x * scale[c] + shift[c]) per channel: a batch norm folded with its activation. */
typedef struct nn_cpu_affine {
    const float *scale, *shift;   /* [c] */
    nn_activation act;
} nn_cpu_affine;

/* What a convolution's output goes through before it is stored, in this order:
 *   v = conv + conv_bias[c] + image_bias[i][c];  v = v * scale[c] + shift[c];
 *   v += residual[i][y][x][c];  y = act(v)
 * Every pointer may be NULL (0, or 1 for scale); residual may be the output itself. */
typedef struct nn_cpu_epilogue {
    const float *conv_bias, *image_bias, *scale, *shift, *residual;
    nn_activation act;
} nn_cpu_epilogue;

/* Sets OpenBLAS to one thread (one BLAS per search worker) and picks the GEMM kernel
 * (SHIDO_CPU_KERNEL, else the best this CPU has), once per process; any thread may call it any
 * number of times. */
void nn_cpu_init(void);

/* The Winograd products' kernels: the best this CPU has (AVX-512, else AVX2 + FMA, else
 * portable C), or one of them by name. */
typedef enum nn_cpu_kernel {
    NN_CPU_KERNEL_BEST,
    NN_CPU_KERNEL_PORTABLE,
    NN_CPU_KERNEL_AVX2,
    NN_CPU_KERNEL_AVX512,
} nn_cpu_kernel;

/* Tests only, with no evaluation running: the Winograd products use kernel k from now on.
 * False (and nothing changes) when this CPU cannot run it. */
bool nn_cpu_force_kernel(nn_cpu_kernel k);

/* The kernel in use: "avx512", "avx2" or "portable". */
const char *nn_cpu_kernel_name(void);

/* Tiles of a batch: n * ceil(height / 4) * ceil(width / 4). */
size_t nn_cpu_wino_tiles(int n, int height, int width);

/* Floats of the scratch a Winograd convolution needs for c channels (its transformed inputs
 * with c = c_in, its products with c = c_out) on a batch of n tensors of height x width. */
size_t nn_cpu_wino_scratch(int n, int height, int width, int c);

/* U = G g G^T for every 3x3 filter g of w[c_out][c_in][3][3], packed for the GEMM kernel:
 * u[36][panel][c_in][NN_WINO_NR], panel = output channel / NN_WINO_NR, the last panel padded
 * with zeros; nn_cpu_wino_filter_len floats. */
size_t nn_cpu_wino_filter_len(int c_in, int c_out);
void nn_cpu_wino_filter(int c_out, int c_in, const float *w, float *u);

/* y[n][height][width][c_out] = epilogue(conv(pre(x))) for x[n][height][width][c_in] with a
 * pre-transformed 3x3 filter u, zero padding (padding is not put through pre). v and m are
 * scratch of nn_cpu_wino_scratch(n, height, width, c_in) and (..., c_out) floats. y must not
 * overlap x; the residual may be y. */
void nn_cpu_wino_conv(int c_in, int c_out, const float *u, int n, int height, int width,
                      const float *x, const nn_cpu_affine *pre, const nn_cpu_epilogue *e,
                      float *v, float *m, float *y);

/* Any kernel (c->w as in desc.h) by im2col and one product over the batch on the Winograd
 * products' kernels; 1x1 kernels read the activations directly. w is nn_cpu_gemm_weights'
 * packing of c->w (nn_cpu_gemm_weights_len floats: panels of NN_WINO_NR output channels,
 * [panel][ky][kx][c_in][NN_WINO_NR]). scratch holds nn_cpu_gemm_conv_scratch(c, n, height,
 * width) floats. y must not overlap x; the residual may be y. */
size_t nn_cpu_gemm_weights_len(const nn_conv_desc *c);
void nn_cpu_gemm_weights(const nn_conv_desc *c, float *w);
size_t nn_cpu_gemm_conv_scratch(const nn_conv_desc *c, int n, int height, int width);
void nn_cpu_gemm_conv(const nn_conv_desc *c, const float *w, int n, int height, int width,
                      const float *x, const nn_cpu_affine *pre, const nn_cpu_epilogue *e,
                      float *scratch, float *y);

/* y = pre(x) elementwise over `points` rows of c channels (y may be x). */
void nn_cpu_affine_apply(const nn_cpu_affine *a, size_t points, int c, const float *x, float *y);

/* Batch norm b folded into scale[c] and shift[c] (computed in double). */
void nn_cpu_bn_fold(const nn_bn_desc *b, float *scale, float *shift);

/* y[n][c_out] = x[n][c_in] . w + bias (one sgemm for the batch). */
void nn_cpu_matmul_batch(const nn_matmul_desc *m, int n, const float *x, float *y);

/* ---- transformer blocks (KataGo 1.17; weights/desc_kata.h) ---- */

/* y[p][ch] = x[p][ch] / sqrt(mean over ch of x[p][.]^2 + eps) * weight[ch] for `points` rows of
 * c channels (y may be x). */
void nn_cpu_rms_norm(size_t points, int c, float eps, const float *weight, const float *x,
                     float *y);

/* The sum of the squares of len floats, accumulated in float in order: KataGo's Eigen backend
 * sums a spatial RMS norm's squares so, and over a whole board (~138,000 squares for 384
 * channels) its rounding moves the outputs by more than the vectors' tolerances allow. */
float nn_cpu_sum_squares(size_t len, const float *x);

/* h[r][f] = silu(ag[r][f]) * ag[r][ffn + f]: SwiGLU of one product with the first linear layer
 * and the gate side by side (rows of 2 * ffn floats). */
void nn_cpu_swiglu(size_t rows, int ffn, const float *ag, float *h);

/* Rotary position encoding of t[n][height * width][heads * q_dim] in place: the pair (2p, 2p+1)
 * of head h at point (y, x) turned by the angle whose cosine and sine are cos_t and sin_t
 * [table][q_dim / 2][19 * 19] at [h * tables / heads][p][y * 19 + x] (tables: 1 for fixed
 * frequencies, the key/value heads for learned ones). */
void nn_cpu_rope(int n, int height, int width, int heads, int tables, int q_dim,
                 const float *cos_t, const float *sin_t, float *t);

/* Denormal floats off (flushed to zero, read as zero) for the calling thread, returning the
 * state to give nn_cpu_denormals_restore. KataGo 1.17's nets carry tens of thousands of
 * denormal weights (b10c384h6nbttflrs: ~1.7%); every product with one costs a microcode
 * assist, which made that net 10x slower. What they change is below 1.2e-38. */
unsigned nn_cpu_denormals_off(void);
void nn_cpu_denormals_restore(unsigned state);

/* Matrix products on the convolutions' GEMM kernels (the system's OpenBLAS may run a generic
 * x86-64 kernel: an SSE3 one on this project's machines, 10x slower than these): b[k][n], its
 * element (i, j) at b[i * ldb + j] (or b[j * ldb + i] when transposed), packed into
 * nn_cpu_pack_len(k, n) floats of panels; then c[rows][n] = a[rows][k] . b, c += with add
 * (k over 64 summed in two halves as the convolutions are; short sums, the attention scores',
 * in one pass). */
size_t nn_cpu_pack_len(int k, int n);
void nn_cpu_pack(int k, int n, const float *b, size_t ldb, bool transposed, float *packed);
void nn_cpu_gemm_packed(int k, int n, const float *packed, size_t rows, const float *a, bool add,
                        float *c);

/* Self-attention over the `area` points of one image: for every head h (reading key/value
 * head h / (heads / kv_heads)) o[.][h * v_dim ...] = softmax(q_h k^T / sqrt(q_dim)) v, with
 * q[area][heads * q_dim], k[area][kv_heads * q_dim], v[area][kv_heads * v_dim] and
 * o[area][heads * v_dim]: two packed products and a softmax a head. scratch holds
 * nn_cpu_attention_scratch(area, q_dim, v_dim) floats. */
size_t nn_cpu_attention_scratch(int area, int q_dim, int v_dim);
void nn_cpu_attention(int area, int heads, int kv_heads, int q_dim, int v_dim, const float *q,
                      const float *k, const float *v, float *scratch, float *o);

/* KataGo's global pooling of x[n][area][c] into out[n][3c] (weights/desc_kata.h): mean, mean *
 * (sqrt(area) - 14) / 10, then the maximum (gpool) or mean * ((sqrt(area) - 14)^2 / 100 - 0.1)
 * (value head). */
void nn_cpu_kata_pool(int n, int c, int area, const float *x, int value_head, float *out);

/* dst[i][col][row] = src[i][row][col] for n matrices of rows x cols (NCHW <-> NHWC). */
void nn_cpu_transpose(int n, int rows, int cols, const float *src, float *dst);

/* The activation of one value (mish through a polynomial exp good to ~2e-7 relative). */
float nn_cpu_activate(nn_activation act, float v);

#endif
