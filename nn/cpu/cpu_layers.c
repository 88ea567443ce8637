/* nn/cpu/cpu_layers.c -- batched float32 layers (see cpu_layers.h): GEMM kernels of its own for
 * the Winograd products and the im2col and 1x1 convolutions (panel_gemm), OpenBLAS (one thread)
 * for the matmuls.
 *
 * The GEMM micro-kernel is one of three, chosen once per process at run time: an 8 x 32 AVX-512
 * kernel (two panels a call), a 6 x 16 AVX2/FMA kernel, or a portable C loop. By default it is
 * the best this CPU runs (__builtin_cpu_supports); SHIDO_CPU_KERNEL=portable|avx2|avx512 picks
 * one, and nn_cpu_force_kernel switches them in tests. The AVX-512 and AVX2 kernels give the same
 * bits; the portable loop (the only one off x86-64 GCC/clang) rounds differently.
 *
 * The other loops over channels (tile transforms, batch norm, activations) are written for the
 * compiler to vectorise. The build targets plain x86-64 (SSE2), so on GCC the hot ones are also
 * compiled for AVX2 and picked at load time by the CPU they run on (target_clones; not under the
 * sanitizers). */
#include "nn/cpu/cpu_layers.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* no clones under the sanitizers: their ifunc resolvers run before the sanitizer's runtime is
 * up (ThreadSanitizer crashes in them at load) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CPU_CLONES
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CPU_FMA_KERNEL 1
#endif

/* Channels per pass of the tile transforms: the 36-point tiles of one pass (a few arrays of
 * 36 x 32 floats) stay in L1. */
#define BLOCK 32

/* Bytes of transformed tiles (input and output) a Winograd pass keeps: the batch goes through
 * in chunks of images that fit. On the Zen 5 VM (2026-11-27, g170 at batch 32, two workers)
 * 3 MB gave 1,231 evals/s against 788 for the whole batch at once, 1,181 for 6 MB and 1,219
 * for 1.5 MB. */
#define WINO_CHUNK_BYTES ((size_t)3 << 20)

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/* The Winograd GEMM's micro-kernel: c[r][0..cols) = a[r][0..k) . b[0..k)[0..NN_WINO_NR) for the
 * rows r < rows (at most NN_WINO_MR, row r at a + r * lda) and one packed panel b; with add,
 * c += that. The AVX-512 kernel (wino_kernel_avx512) takes NN_WINO_MR_512 rows and two
 * panels; it and the AVX2 kernel sum each output in the same order with fused multiply-adds,
 * so they give the same bits. */
typedef void (*wino_kernel_fn)(int k, const float *a, size_t lda, int rows, const float *b,
                               float *c, size_t ldc, int cols, bool add);
static wino_kernel_fn wino_kernel;
static int wino_mr;                /* tiles a step: NN_WINO_MR, or NN_WINO_MR_512 for AVX-512 */
static const char *wino_name;

static void wino_kernel_plain(int k, const float *a, size_t lda, int rows, const float *b,
                              float *c, size_t ldc, int cols, bool add);
#ifdef CPU_FMA_KERNEL
static void wino_kernel_fma(int k, const float *a, size_t lda, int rows, const float *b,
                            float *c, size_t ldc, int cols, bool add);
#endif

static bool cpu_has(nn_cpu_kernel k)
{
#ifdef CPU_FMA_KERNEL
    if (k == NN_CPU_KERNEL_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (k == NN_CPU_KERNEL_AVX512)
        return __builtin_cpu_supports("avx512f");
#endif
    return k == NN_CPU_KERNEL_BEST || k == NN_CPU_KERNEL_PORTABLE;
}

static void use_kernel(nn_cpu_kernel k)
{
    if (k == NN_CPU_KERNEL_BEST)
        k = cpu_has(NN_CPU_KERNEL_AVX512) ? NN_CPU_KERNEL_AVX512
            : cpu_has(NN_CPU_KERNEL_AVX2) ? NN_CPU_KERNEL_AVX2
                                          : NN_CPU_KERNEL_PORTABLE;
    wino_kernel = wino_kernel_plain;
    wino_mr = NN_WINO_MR;
    wino_name = "portable";
#ifdef CPU_FMA_KERNEL
    if (k == NN_CPU_KERNEL_AVX2) {
        wino_kernel = wino_kernel_fma;
        wino_name = "avx2";
    } else if (k == NN_CPU_KERNEL_AVX512) {
        wino_mr = NN_WINO_MR_512;   /* wino_gemm calls wino_kernel_avx512 itself */
        wino_name = "avx512";
    }
#endif
}

/* SHIDO_CPU_KERNEL=portable|avx2|avx512 picks the kernel (to compare them, or to keep a CPU
 * that slows its clock for AVX-512 on AVX2); unset or empty, the best this CPU has. */
static void cpu_setup(void)
{
    openblas_set_num_threads(1);
    static const char *const names[] = {"", "portable", "avx2", "avx512"};
    nn_cpu_kernel k = NN_CPU_KERNEL_BEST;
    const char *want = getenv("SHIDO_CPU_KERNEL");
    if (want && *want) {
        int i = 1;
        while (i < 4 && strcmp(want, names[i]) != 0)
            i++;
        if (i == 4)
            fprintf(stderr, "nn: SHIDO_CPU_KERNEL=%s is not portable, avx2 or avx512; the best "
                    "this CPU has instead\n", want);
        else if (!cpu_has((nn_cpu_kernel)i))
            fprintf(stderr, "nn: SHIDO_CPU_KERNEL=%s: this CPU cannot run it; the best it has "
                    "instead\n", want);
        else
            k = (nn_cpu_kernel)i;
    }
    use_kernel(k);
}

void nn_cpu_init(void) { pthread_once(&cpu_once, cpu_setup); }

bool nn_cpu_force_kernel(nn_cpu_kernel k)
{
    nn_cpu_init();
    if (!cpu_has(k))
        return false;
    use_kernel(k);
    return true;
}

const char *nn_cpu_kernel_name(void)
{
    nn_cpu_init();
    return wino_name;
}

/* e^x for x in [-87, 20]: 2^k * e^r with |r| <= ln2/2 and a degree-6 Taylor polynomial
 * (~2e-7 relative). k is rounded by adding and removing 1.5 * 2^23 (floorf would keep loops
 * scalar). Callers clamp x in a loop of its own: a clamp inside keeps GCC from vectorising. */
static inline float exp_core(float x)
{
    float k = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = x - k * 0.693145752f - k * 1.42860677e-6f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
                                                                             r * (1.0f / 720))))));
    union { int32_t i; float f; } scale = {.i = ((int32_t)k + 127) << 23};
    return p * scale.f;
}

static inline float mish_clamp(float v) { return v < -87.0f ? -87.0f : v > 20.0f ? 20.0f : v; }

/* v * tanh(softplus(v)) = v * ((1 + e^v)^2 - 1) / ((1 + e^v)^2 + 1), with e^v of the clamped
 * u = mish_clamp(v): above 20 the quotient rounds to exactly 1, below -87 to 0. */
static inline float mish_of(float v, float u)
{
    float e = exp_core(u), n = e * (e + 2.0f);
    return v * n / (n + 2.0f);
}

/* -v clamped for silu_of: below -20 the sigmoid is below 2e-9 (silu ~ 0 either way) */
static inline float silu_clamp(float v) { return -v < -87.0f ? -87.0f : -v > 20.0f ? 20.0f : -v; }

/* v * sigmoid(v) = v / (1 + e^-v), with e^-v of the clamped u = silu_clamp(v) */
static inline float silu_of(float v, float u) { return v / (1.0f + exp_core(u)); }

float nn_cpu_activate(nn_activation act, float v)
{
    switch (act) {
    case NN_ACT_RELU:
        return v > 0.0f ? v : 0.0f;
    case NN_ACT_MISH:
        return mish_of(v, mish_clamp(v));
    case NN_ACT_SILU:
        return silu_of(v, silu_clamp(v));
    case NN_ACT_IDENTITY:
        break;
    }
    return v;
}

/* dst[ch] = act(v[ch] * a[ch] + b[ch] + res[ch]) for ch < cb (res may be NULL or dst). */
static inline void finish(nn_activation act, int cb, const float *restrict v,
                          const float *restrict a, const float *restrict b, const float *res,
                          float *dst)
{
    float t[BLOCK], u[BLOCK];
    for (int ch = 0; ch < cb; ch++)
        t[ch] = v[ch] * a[ch] + b[ch];
    if (res)
        for (int ch = 0; ch < cb; ch++)
            t[ch] += res[ch];
    switch (act) {
    case NN_ACT_RELU:
        for (int ch = 0; ch < cb; ch++)
            dst[ch] = t[ch] > 0.0f ? t[ch] : 0.0f;
        break;
    case NN_ACT_MISH:   /* two loops, so that both vectorise */
        for (int ch = 0; ch < cb; ch++)
            u[ch] = mish_clamp(t[ch]);
        for (int ch = 0; ch < cb; ch++)
            dst[ch] = mish_of(t[ch], u[ch]);
        break;
    case NN_ACT_SILU:
        for (int ch = 0; ch < cb; ch++)
            u[ch] = silu_clamp(t[ch]);
        for (int ch = 0; ch < cb; ch++)
            dst[ch] = silu_of(t[ch], u[ch]);
        break;
    case NN_ACT_IDENTITY:
        for (int ch = 0; ch < cb; ch++)
            dst[ch] = t[ch];
        break;
    }
}

/* The epilogue of image i as y = act(v * a + b + residual): a[c] and b[c]. */
static void epilogue_coeffs(const nn_cpu_epilogue *e, int i, int c, float *a, float *b)
{
    for (int ch = 0; ch < c; ch++) {
        float add = (e->conv_bias ? e->conv_bias[ch] : 0.0f) +
                    (e->image_bias ? e->image_bias[(size_t)i * c + ch] : 0.0f);
        float scale = e->scale ? e->scale[ch] : 1.0f, shift = e->shift ? e->shift[ch] : 0.0f;
        a[ch] = scale;
        b[ch] = add * scale + shift;
    }
}

/* Tiles along a side of `points` points. */
static int wino_side(int points) { return (points + NN_WINO_OUT - 1) / NN_WINO_OUT; }

size_t nn_cpu_wino_tiles(int n, int height, int width)
{
    return (size_t)n * (size_t)wino_side(height) * (size_t)wino_side(width);
}

/* Floats between two of the 36 planes of transformed tiles or products, [36][tiles][c]: one
 * cache line more than a plane, so that the 36 points of a tile, which every transform touches
 * together, fall in 36 different cache sets. With plain planes a batch of 8 on 19x19 at 128
 * channels puts them exactly 25 x 4 KiB apart: all in one L1 set, which holds 8. */
static size_t wino_plane(size_t tiles, int c) { return tiles * c + 16; }

size_t nn_cpu_wino_scratch(int n, int height, int width, int c)
{
    return NN_WINO_POINTS * wino_plane(nn_cpu_wino_tiles(n, height, width), c);
}

static int wino_panels(int c_out) { return (c_out + NN_WINO_NR - 1) / NN_WINO_NR; }

size_t nn_cpu_wino_filter_len(int c_in, int c_out)
{
    return (size_t)NN_WINO_POINTS * c_in * wino_panels(c_out) * NN_WINO_NR;
}

void nn_cpu_wino_filter(int c_out, int c_in, const float *w, float *u)
{
    /* G (6x3) for the interpolation points 0, 1, -1, 2, -2 and infinity */
    static const double G[6][3] = {{1.0 / 4, 0, 0},
                                   {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                   {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                   {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                   {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                   {0, 0, 1}};
    int panels = wino_panels(c_out);
    memset(u, 0, sizeof *u * nn_cpu_wino_filter_len(c_in, c_out));   /* the last panel's pad */
    for (int o = 0; o < c_out; o++)
        for (int i = 0; i < c_in; i++) {
            const float *g = w + ((size_t)o * c_in + i) * 9;
            double gg[6][3];   /* G g */
            for (int r = 0; r < 6; r++)
                for (int col = 0; col < 3; col++)
                    gg[r][col] = G[r][0] * g[col] + G[r][1] * g[3 + col] + G[r][2] * g[6 + col];
            for (int r = 0; r < 6; r++)
                for (int col = 0; col < 6; col++) {
                    double s = gg[r][0] * G[col][0] + gg[r][1] * G[col][1] + gg[r][2] * G[col][2];
                    size_t panel = (size_t)(r * 6 + col) * panels + (size_t)(o / NN_WINO_NR);
                    u[(panel * c_in + i) * NN_WINO_NR + o % NN_WINO_NR] = (float)s;
                }
        }
}

/* B^T applied to six rows of cb channels: in[j], j = 0..5 -> out + j * o. Every row is its
 * own restrict pointer so that the loop vectorises without alias checks. */
static inline void wino_bt_rows(int cb, const float *restrict i0, const float *restrict i1,
                                const float *restrict i2, const float *restrict i3,
                                const float *restrict i4, const float *restrict i5,
                                float *restrict o0, float *restrict o1, float *restrict o2,
                                float *restrict o3, float *restrict o4, float *restrict o5)
{
    for (int ch = 0; ch < cb; ch++) {
        float d0 = i0[ch], d1 = i1[ch], d2 = i2[ch], d3 = i3[ch], d4 = i4[ch], d5 = i5[ch];
        o0[ch] = 4.0f * d0 - 5.0f * d2 + d4;
        o1[ch] = -4.0f * (d1 + d2) + d3 + d4;
        o2[ch] = 4.0f * (d1 - d2) - d3 + d4;
        o3[ch] = 2.0f * (d3 - d1) - d2 + d4;
        o4[ch] = 2.0f * (d1 - d3) - d2 + d4;
        o5[ch] = 4.0f * d1 - 5.0f * d3 + d5;
    }
}

static inline void wino_bt(int cb, const float *const in[6], float *out, size_t o)
{
    if (cb == BLOCK)   /* a constant trip count: whole vectors, no remainder loop */
        wino_bt_rows(BLOCK, in[0], in[1], in[2], in[3], in[4], in[5], out, out + o,
                     out + 2 * o, out + 3 * o, out + 4 * o, out + 5 * o);
    else
        wino_bt_rows(cb, in[0], in[1], in[2], in[3], in[4], in[5], out, out + o, out + 2 * o,
                     out + 3 * o, out + 4 * o, out + 5 * o);
}

/* A^T applied to six rows of cb channels: in + j * s, j = 0..5 -> out + j * o, j = 0..3. */
static inline void wino_at(int cb, const float *restrict in, size_t s, float *restrict out,
                           size_t o)
{
    for (int ch = 0; ch < cb; ch++) {
        float m0 = in[ch], m1 = in[s + ch], m2 = in[2 * s + ch], m3 = in[3 * s + ch];
        float m4 = in[4 * s + ch], m5 = in[5 * s + ch];
        float a = m1 + m2, b = m1 - m2, c = m3 + m4, d = m3 - m4;
        out[ch] = m0 + a + c;
        out[o + ch] = b + 2.0f * d;
        out[2 * o + ch] = a + 4.0f * c;
        out[3 * o + ch] = b + 8.0f * d + m5;
    }
}

static const float zeros[NN_CPU_MAX_CHANNELS];

/* v[k][p][ch] = (B^T d B)[k] of every tile p of every image, d read through pre. Points off
 * the board read zeros (not put through pre). The rows go straight into v. */
CPU_CLONES
static void wino_input(int c, int height, int width, int n, const float *x,
                       const nn_cpu_affine *pre, float *v)
{
    int th = wino_side(height), tw = wino_side(width);
    size_t area = (size_t)height * width, tiles = nn_cpu_wino_tiles(n, height, width);
    size_t plane = wino_plane(tiles, c);
    float d[36][BLOCK], tmp[36][BLOCK];
    for (int i = 0; i < n; i++)
        for (int ty = 0; ty < th; ty++)
            for (int tx = 0; tx < tw; tx++) {
                size_t p = ((size_t)i * th + ty) * tw + tx;
                const float *src[36];
                bool on[36];
                for (int r = 0; r < 6; r++)
                    for (int col = 0; col < 6; col++) {
                        int k = r * 6 + col;
                        int yy = ty * NN_WINO_OUT + r - 1, xx = tx * NN_WINO_OUT + col - 1;
                        on[k] = yy >= 0 && yy < height && xx >= 0 && xx < width;
                        src[k] = on[k] ? x + ((size_t)i * area + (size_t)yy * width + xx) * c
                                       : zeros;
                    }
                for (int c0 = 0; c0 < c; c0 += BLOCK) {
                    int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
                    const float *in[36];
                    for (int k = 0; k < 36; k++) {
                        in[k] = src[k] + c0;
                        if (pre && on[k]) {
                            finish(pre->act, cb, in[k], pre->scale + c0, pre->shift + c0, NULL,
                                   d[k]);
                            in[k] = d[k];
                        }
                    }
                    for (int col = 0; col < 6; col++) {   /* columns: B^T d */
                        const float *column[6] = {in[col], in[6 + col], in[12 + col],
                                                  in[18 + col], in[24 + col], in[30 + col]};
                        wino_bt(cb, column, tmp[col], 6 * BLOCK);
                    }
                    for (int r = 0; r < 6; r++) {         /* rows: (B^T d) B, into v */
                        const float *row[6] = {tmp[6 * r], tmp[6 * r + 1], tmp[6 * r + 2],
                                               tmp[6 * r + 3], tmp[6 * r + 4], tmp[6 * r + 5]};
                        wino_bt(cb, row, v + (size_t)(6 * r) * plane + p * c + c0, plane);
                    }
                }
            }
}

/* Asks for the residual of the 4 x 4 points of the tile at (y0, x0) of an image ahead of use:
 * the residual is a layer two convolutions old, out of L2; loading it was the hottest spot of
 * the output transform, which this makes ~8% faster in a Leela Zero 10x128 forward pass. */
static inline void prefetch_rows(const float *res, int height, int width, int y0, int x0,
                                 int c)
{
#ifdef __GNUC__
    int rows = height - y0 < NN_WINO_OUT ? height - y0 : NN_WINO_OUT;
    int cols = width - x0 < NN_WINO_OUT ? width - x0 : NN_WINO_OUT;
    for (int r = 0; r < rows; r++) {
        const float *row = res + ((size_t)(y0 + r) * width + x0) * c;
        for (int f = 0; f < cols * c; f += 16)
            __builtin_prefetch(row + f, 0, 3);
    }
#endif
}

/* y = epilogue(A^T m A) for every tile; points past the board edge are dropped. */
CPU_CLONES
static void wino_output(int c, int height, int width, int n, float *m, const nn_cpu_epilogue *e,
                        float *y)
{
    int th = wino_side(height), tw = wino_side(width);
    size_t area = (size_t)height * width, tiles = nn_cpu_wino_tiles(n, height, width);
    size_t plane = wino_plane(tiles, c);
    float a[NN_CPU_MAX_CHANNELS], b[NN_CPU_MAX_CHANNELS];
    float tmp[24][BLOCK], out[16][BLOCK];
    for (int i = 0; i < n; i++) {
        epilogue_coeffs(e, i, c, a, b);
        for (int ty = 0; ty < th; ty++)
            for (int tx = 0; tx < tw; tx++) {
                size_t p = ((size_t)i * th + ty) * tw + tx;
                int y0 = ty * NN_WINO_OUT, x0 = tx * NN_WINO_OUT;
                int rows = height - y0 < NN_WINO_OUT ? height - y0 : NN_WINO_OUT;
                int cols = width - x0 < NN_WINO_OUT ? width - x0 : NN_WINO_OUT;
                if (e->residual && tx + 1 < tw)
                    prefetch_rows(e->residual + (size_t)i * area * c, height, width, y0,
                                  x0 + NN_WINO_OUT, c);
                for (int c0 = 0; c0 < c; c0 += BLOCK) {
                    int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
                    for (int col = 0; col < 6; col++)   /* columns: A^T m, read from m */
                        wino_at(cb, m + col * plane + p * c + c0, 6 * plane, tmp[col],
                                6 * BLOCK);
                    for (int r = 0; r < 4; r++)         /* rows: (A^T m) A */
                        wino_at(cb, tmp[6 * r], BLOCK, out[4 * r], BLOCK);
                    for (int r = 0; r < rows; r++)
                        for (int col = 0; col < cols; col++) {
                            size_t at = ((size_t)i * area + (size_t)(y0 + r) * width + x0 + col) *
                                            c + c0;
                            finish(e->act, cb, out[4 * r + col], a + c0, b + c0,
                                   e->residual ? e->residual + at : NULL, y + at);
                        }
                }
            }
    }
}

/* ---- the 36 GEMMs of a Winograd convolution --------------------------------------------------
 *
 * m[k][tiles][c_out] = v[k][tiles][c_in] . U[k] for every point k, with U[k] packed at load in
 * panels of NN_WINO_NR output channels, [panel][c_in][NN_WINO_NR], and v read in place: the
 * kernel broadcasts one input value of each of NN_WINO_MR tiles at a time (any layout serves for
 * that), so nothing is packed per call, and m is written rather than accumulated, so nothing is
 * zeroed. OpenBLAS spent 13% of a Leela Zero 10x128 forward pass packing both operands of
 * these products. */

static void wino_store(const float acc[NN_WINO_MR][NN_WINO_NR], int rows, int cols, float *c,
                       size_t ldc, bool add)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            c[(size_t)r * ldc + j] = add ? c[(size_t)r * ldc + j] + acc[r][j] : acc[r][j];
}

static void wino_kernel_plain(int k, const float *a, size_t lda, int rows, const float *b,
                              float *c, size_t ldc, int cols, bool add)
{
    float acc[NN_WINO_MR][NN_WINO_NR] = {{0}};
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < k; i++) {
            float ai = a[(size_t)r * lda + i];
            for (int j = 0; j < NN_WINO_NR; j++)
                acc[r][j] += ai * b[(size_t)i * NN_WINO_NR + j];
        }
    wino_store((const float(*)[NN_WINO_NR])acc, rows, cols, c, ldc, add);
}

#ifdef CPU_FMA_KERNEL
/* 6 x 16 outputs in 12 registers: per input channel two loads of the panel, six broadcasts and
 * twelve fused multiply-adds. Missing rows repeat the last one (computed, not stored). */
__attribute__((target("avx2,fma")))
static void wino_kernel_fma(int k, const float *a, size_t lda, int rows, const float *b,
                            float *c, size_t ldc, int cols, bool add)
{
    const float *a0 = a, *a1 = a + (rows > 1 ? lda : 0), *a2 = a + (rows > 2 ? 2 * lda : 0);
    const float *a3 = a + (rows > 3 ? 3 * lda : 0), *a4 = a + (rows > 4 ? 4 * lda : 0);
    const float *a5 = a + (rows > 5 ? 5 * lda : 0);
    if (rows <= 2)
        a2 = a3 = a4 = a5 = a1;
    else if (rows <= 3)
        a3 = a4 = a5 = a2;
    else if (rows <= 4)
        a4 = a5 = a3;
    else if (rows <= 5)
        a5 = a4;
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int i = 0; i < k; i++) {
        const float *bi = b + (size_t)i * NN_WINO_NR;
        __m256 b0 = _mm256_loadu_ps(bi), b1 = _mm256_loadu_ps(bi + 8);
        __m256 x = _mm256_broadcast_ss(a0 + i);
        c00 = _mm256_fmadd_ps(x, b0, c00);
        c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(a1 + i);
        c10 = _mm256_fmadd_ps(x, b0, c10);
        c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(a2 + i);
        c20 = _mm256_fmadd_ps(x, b0, c20);
        c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(a3 + i);
        c30 = _mm256_fmadd_ps(x, b0, c30);
        c31 = _mm256_fmadd_ps(x, b1, c31);
        x = _mm256_broadcast_ss(a4 + i);
        c40 = _mm256_fmadd_ps(x, b0, c40);
        c41 = _mm256_fmadd_ps(x, b1, c41);
        x = _mm256_broadcast_ss(a5 + i);
        c50 = _mm256_fmadd_ps(x, b0, c50);
        c51 = _mm256_fmadd_ps(x, b1, c51);
    }
    float acc[NN_WINO_MR][NN_WINO_NR];
    bool full = rows == NN_WINO_MR && cols == NN_WINO_NR;
    if (full && add) {
        c00 = _mm256_add_ps(c00, _mm256_loadu_ps(c));
        c01 = _mm256_add_ps(c01, _mm256_loadu_ps(c + 8));
        c10 = _mm256_add_ps(c10, _mm256_loadu_ps(c + ldc));
        c11 = _mm256_add_ps(c11, _mm256_loadu_ps(c + ldc + 8));
        c20 = _mm256_add_ps(c20, _mm256_loadu_ps(c + 2 * ldc));
        c21 = _mm256_add_ps(c21, _mm256_loadu_ps(c + 2 * ldc + 8));
        c30 = _mm256_add_ps(c30, _mm256_loadu_ps(c + 3 * ldc));
        c31 = _mm256_add_ps(c31, _mm256_loadu_ps(c + 3 * ldc + 8));
        c40 = _mm256_add_ps(c40, _mm256_loadu_ps(c + 4 * ldc));
        c41 = _mm256_add_ps(c41, _mm256_loadu_ps(c + 4 * ldc + 8));
        c50 = _mm256_add_ps(c50, _mm256_loadu_ps(c + 5 * ldc));
        c51 = _mm256_add_ps(c51, _mm256_loadu_ps(c + 5 * ldc + 8));
    }
    float *out = full ? c : acc[0];
    size_t ld = full ? ldc : NN_WINO_NR;
    _mm256_storeu_ps(out, c00);
    _mm256_storeu_ps(out + 8, c01);
    _mm256_storeu_ps(out + ld, c10);
    _mm256_storeu_ps(out + ld + 8, c11);
    _mm256_storeu_ps(out + 2 * ld, c20);
    _mm256_storeu_ps(out + 2 * ld + 8, c21);
    _mm256_storeu_ps(out + 3 * ld, c30);
    _mm256_storeu_ps(out + 3 * ld + 8, c31);
    _mm256_storeu_ps(out + 4 * ld, c40);
    _mm256_storeu_ps(out + 4 * ld + 8, c41);
    _mm256_storeu_ps(out + 5 * ld, c50);
    _mm256_storeu_ps(out + 5 * ld + 8, c51);
    if (!full)
        wino_store((const float(*)[NN_WINO_NR])acc, rows, cols, c, ldc, add);
}
#endif

#ifdef CPU_FMA_KERNEL
/* 8 x 32 outputs (two panels) in 16 registers of 16 floats: per input channel two loads of the
 * panels and sixteen fused multiply-adds with a broadcast input value, each output one chain
 * of them in channel order as in the AVX2 kernel. b1 is the second panel, or b0 again where
 * there is none (computed, not stored: cols <= 16); missing rows repeat the last one. Twelve
 * rows of one panel left the compiler too few registers for the row pointers. */
#define WINO_ROW(r) const float *a##r = a + (size_t)(r < rows ? r : rows - 1) * lda
#define WINO_FMA(r)                                      \
    do {                                                 \
        __m512 x = _mm512_set1_ps(a##r[i]);              \
        c##r##0 = _mm512_fmadd_ps(x, b0i, c##r##0);      \
        c##r##1 = _mm512_fmadd_ps(x, b1i, c##r##1);      \
    } while (0)
__attribute__((target("avx512f")))
static void wino_kernel_avx512(int k, const float *a, size_t lda, int rows, const float *b0,
                               const float *b1, float *c, size_t ldc, int cols, bool add)
{
    WINO_ROW(0); WINO_ROW(1); WINO_ROW(2); WINO_ROW(3);
    WINO_ROW(4); WINO_ROW(5); WINO_ROW(6); WINO_ROW(7);
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00;
    for (int i = 0; i < k; i++) {
        __m512 b0i = _mm512_loadu_ps(b0 + (size_t)i * NN_WINO_NR);
        __m512 b1i = _mm512_loadu_ps(b1 + (size_t)i * NN_WINO_NR);
        WINO_FMA(0); WINO_FMA(1); WINO_FMA(2); WINO_FMA(3);
        WINO_FMA(4); WINO_FMA(5); WINO_FMA(6); WINO_FMA(7);
    }
    __m512 acc[NN_WINO_MR_512][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                     {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
    if (rows == NN_WINO_MR_512 && cols == 2 * NN_WINO_NR) {
        for (int r = 0; r < NN_WINO_MR_512; r++)
            for (int h = 0; h < 2; h++) {
                float *cr = c + (size_t)r * ldc + h * NN_WINO_NR;
                _mm512_storeu_ps(cr, add ? _mm512_add_ps(_mm512_loadu_ps(cr), acc[r][h])
                                         : acc[r][h]);
            }
        return;
    }
    float part[2 * NN_WINO_NR];
    for (int r = 0; r < rows; r++) {
        _mm512_storeu_ps(part, acc[r][0]);
        _mm512_storeu_ps(part + NN_WINO_NR, acc[r][1]);
        for (int j = 0; j < cols; j++)
            c[(size_t)r * ldc + j] = add ? c[(size_t)r * ldc + j] + part[j] : part[j];
    }
}
#undef WINO_ROW
#undef WINO_FMA
#endif

/* m[rows][c_out] = a[rows][c_in] . the packed panels u ([panel][c_in][NN_WINO_NR]): the
 * products of one Winograd point, and the im2col and 1x1 convolutions. split: c_in of 32 or
 * more summed in two halves (below). */
static void panel_gemm(int c_in, int c_out, const float *u, size_t rows_all, const float *a_all,
                       float *m, bool split)
{
    int panels = wino_panels(c_out), mr = wino_mr;
    wino_kernel_fn kernel = wino_kernel;
    /* two half sums added at the end: half the rounding error of one long sum, which the
     * Leela Zero vectors' 2e-5 on the policy needed */
    int half = split && c_in >= 32 ? c_in / 2 : c_in;
    for (size_t p = 0; p < rows_all; p += (size_t)mr) {
        /* the rows (6 or 8 x c_in floats) stay in L1 while the panels pass by */
        int rows = rows_all - p < (size_t)mr ? (int)(rows_all - p) : mr;
        const float *a = a_all + p * c_in;
#ifdef CPU_FMA_KERNEL
        if (mr == NN_WINO_MR_512) {   /* two panels a call */
            for (int jb = 0; jb < panels; jb += 2) {
                const float *b0 = u + (size_t)jb * c_in * NN_WINO_NR;
                const float *b1 = jb + 1 < panels ? b0 + (size_t)c_in * NN_WINO_NR : b0;
                int cols = c_out - jb * NN_WINO_NR < 2 * NN_WINO_NR ? c_out - jb * NN_WINO_NR
                                                                    : 2 * NN_WINO_NR;
                float *mp = m + p * c_out + (size_t)jb * NN_WINO_NR;
                size_t h = (size_t)half * NN_WINO_NR;
                wino_kernel_avx512(half, a, (size_t)c_in, rows, b0, b1, mp, (size_t)c_out, cols,
                                   false);
                if (half < c_in)
                    wino_kernel_avx512(c_in - half, a + half, (size_t)c_in, rows, b0 + h,
                                       b1 + h, mp, (size_t)c_out, cols, true);
            }
            continue;
        }
#endif
        for (int jb = 0; jb < panels; jb++) {
            const float *b = u + (size_t)jb * c_in * NN_WINO_NR;
            int cols = c_out - jb * NN_WINO_NR < NN_WINO_NR ? c_out - jb * NN_WINO_NR
                                                            : NN_WINO_NR;
            float *mp = m + p * c_out + (size_t)jb * NN_WINO_NR;
            kernel(half, a, (size_t)c_in, rows, b, mp, (size_t)c_out, cols, false);
            if (half < c_in)
                kernel(c_in - half, a + half, (size_t)c_in, rows, b + (size_t)half * NN_WINO_NR,
                       mp, (size_t)c_out, cols, true);
        }
    }
}

static void wino_gemm(int c_in, int c_out, const float *u, size_t tiles, const float *v,
                      float *m)
{
    size_t panel_floats = (size_t)wino_panels(c_out) * c_in * NN_WINO_NR;
    for (int k = 0; k < NN_WINO_POINTS; k++)
        panel_gemm(c_in, c_out, u + k * panel_floats, tiles,
                   v + (size_t)k * wino_plane(tiles, c_in),
                   m + (size_t)k * wino_plane(tiles, c_out), true);
}

void nn_cpu_wino_conv(int c_in, int c_out, const float *u, int n, int height, int width,
                      const float *x, const nn_cpu_affine *pre, const nn_cpu_epilogue *e,
                      float *v, float *m, float *y)
{
    nn_cpu_init();
    /* a few images at a time, so that their transformed tiles (v and m, WINO_CHUNK_BYTES at
     * most, or one image) stay in the caches between the transforms and the products */
    size_t area = (size_t)height * width;
    size_t image_bytes = sizeof(float) * NN_WINO_POINTS * nn_cpu_wino_tiles(1, height, width) *
                         (size_t)(c_in + c_out);
    int chunk = image_bytes < WINO_CHUNK_BYTES ? (int)(WINO_CHUNK_BYTES / image_bytes) : 1;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int k = n - i0 < chunk ? n - i0 : chunk;
        nn_cpu_epilogue ek = *e;
        if (ek.image_bias)
            ek.image_bias += (size_t)i0 * c_out;
        if (ek.residual)
            ek.residual += (size_t)i0 * area * c_out;
        wino_input(c_in, height, width, k, x + (size_t)i0 * area * c_in, pre, v);
        wino_gemm(c_in, c_out, u, nn_cpu_wino_tiles(k, height, width), v, m);
        wino_output(c_out, height, width, k, m, &ek, y + (size_t)i0 * area * c_out);
    }
}

/* dst = epilogue(src) over `points` rows of c channels of image i (dst may be the residual). */
CPU_CLONES
static void epilogue_rows(const nn_cpu_epilogue *e, int i, int c, size_t points,
                          const float *src, float *dst, const float *res)
{
    float a[NN_CPU_MAX_CHANNELS], b[NN_CPU_MAX_CHANNELS];
    epilogue_coeffs(e, i, c, a, b);
    for (size_t p = 0; p < points; p++)
        for (int c0 = 0; c0 < c; c0 += BLOCK) {
            int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
            size_t at = p * c + c0;
            finish(e->act, cb, src + at, a + c0, b + c0, res ? res + at : NULL, dst + at);
        }
}

CPU_CLONES
void nn_cpu_affine_apply(const nn_cpu_affine *a, size_t points, int c, const float *x, float *y)
{
    for (size_t p = 0; p < points; p++)
        for (int c0 = 0; c0 < c; c0 += BLOCK) {
            int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
            finish(a->act, cb, x + p * c + c0, a->scale + c0, a->shift + c0, NULL, y + p * c + c0);
        }
}

size_t nn_cpu_gemm_weights_len(const nn_conv_desc *c)
{
    return (size_t)wino_panels(c->c_out) * c->c_in * c->ky * c->kx * NN_WINO_NR;
}

void nn_cpu_gemm_weights(const nn_conv_desc *c, float *w)
{
    size_t k = (size_t)c->c_in * c->ky * c->kx;
    memset(w, 0, sizeof *w * nn_cpu_gemm_weights_len(c));   /* the last panel's pad */
    for (int o = 0; o < c->c_out; o++)
        for (int i = 0; i < c->c_in; i++)
            for (int dy = 0; dy < c->ky; dy++)
                for (int dx = 0; dx < c->kx; dx++) {
                    size_t row = ((size_t)dy * c->kx + dx) * c->c_in + i;   /* im2col's order */
                    w[((size_t)(o / NN_WINO_NR) * k + row) * NN_WINO_NR + o % NN_WINO_NR] =
                        c->w[(((size_t)o * c->c_in + i) * c->ky + dy) * c->kx + dx];
                }
}

size_t nn_cpu_gemm_conv_scratch(const nn_conv_desc *c, int n, int height, int width)
{
    size_t rows = (size_t)n * height * width, k = (size_t)c->c_in * c->ky * c->kx;
    return rows * ((size_t)c->c_in + (c->ky * c->kx > 1 ? k : 0) + (size_t)c->c_out);
}

/* col[i][y][x][(dy * kx + dx) * c_in + ci] = x[i][y + dy * dil_y - py][x + dx * dil_x - px][ci],
 * zero off the board. */
static void im2col(const nn_conv_desc *c, int n, int height, int width, const float *x,
                   float *col)
{
    int py = (c->ky / 2) * c->dil_y, px = (c->kx / 2) * c->dil_x;
    size_t area = (size_t)height * width, ci = (size_t)c->c_in, k = ci * c->ky * c->kx;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < height; r++)
            for (int q = 0; q < width; q++) {
                float *row = col + ((size_t)i * area + (size_t)r * width + q) * k;
                for (int dy = 0; dy < c->ky; dy++)
                    for (int dx = 0; dx < c->kx; dx++) {
                        int yy = r + dy * c->dil_y - py, xx = q + dx * c->dil_x - px;
                        float *dst = row + ((size_t)dy * c->kx + dx) * ci;
                        if (yy >= 0 && yy < height && xx >= 0 && xx < width)
                            memcpy(dst, x + ((size_t)i * area + (size_t)yy * width + xx) * ci,
                                   sizeof *dst * ci);
                        else
                            memset(dst, 0, sizeof *dst * ci);
                    }
            }
}

void nn_cpu_gemm_conv(const nn_conv_desc *c, const float *w, int n, int height, int width,
                      const float *x, const nn_cpu_affine *pre, const nn_cpu_epilogue *e,
                      float *scratch, float *y)
{
    size_t area = (size_t)height * width, rows = (size_t)n * area;
    int k = c->c_in * c->ky * c->kx;
    bool one = c->ky * c->kx == 1;
    float *in = scratch, *col = in + rows * c->c_in, *out = col + (one ? 0 : rows * k);
    if (pre) {
        nn_cpu_affine_apply(pre, rows, c->c_in, x, in);
        x = in;
    }
    if (!one)
        im2col(c, n, height, width, x, col);
    /* out[rows][c_out] = col[rows][k] . the panels of w, then the epilogue writes y, so the
     * residual may be y itself */
    nn_cpu_init();
    panel_gemm(k, c->c_out, w, rows, one ? x : col, out, true);
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)i * area * c->c_out;
        epilogue_rows(e, i, c->c_out, area, out + at, y + at, e->residual ? e->residual + at : NULL);
    }
}

void nn_cpu_bn_fold(const nn_bn_desc *b, float *scale, float *shift)
{
    for (int ch = 0; ch < b->c; ch++) {
        double a = (b->scale ? b->scale[ch] : 1.0) / sqrt((double)b->var[ch] + (double)b->eps);
        scale[ch] = (float)a;
        shift[ch] = (float)((b->bias ? b->bias[ch] : 0.0) - b->mean[ch] * a);
    }
}

void nn_cpu_matmul_batch(const nn_matmul_desc *m, int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        for (int o = 0; o < m->c_out; o++)
            y[(size_t)i * m->c_out + o] = m->bias ? m->bias[o] : 0.0f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m->c_out, m->c_in, 1.0f, x,
                m->c_in, m->w, m->c_out, 1.0f, y, m->c_out);
}

CPU_CLONES
void nn_cpu_rms_norm(size_t points, int c, float eps, const float *weight, const float *x,
                     float *y)
{
    for (size_t p = 0; p < points; p++) {
        const float *xp = x + p * c;
        float *yp = y + p * c;
        float ss = 0;
        for (int ch = 0; ch < c; ch++)
            ss += xp[ch] * xp[ch];
        float inv = 1.0f / sqrtf(ss / (float)c + eps);
        for (int ch = 0; ch < c; ch++)
            yp[ch] = xp[ch] * inv * weight[ch];
    }
}

float nn_cpu_sum_squares(size_t len, const float *x)
{
    float ss = 0;
    for (size_t i = 0; i < len; i++)
        ss += x[i] * x[i];
    return ss;
}

CPU_CLONES
void nn_cpu_swiglu(size_t rows, int ffn, const float *ag, float *h)
{
    float u[BLOCK];
    for (size_t r = 0; r < rows; r++) {
        const float *a = ag + r * 2 * ffn, *g = a + ffn;
        float *hr = h + r * ffn;
        for (int f0 = 0; f0 < ffn; f0 += BLOCK) {
            int fb = ffn - f0 < BLOCK ? ffn - f0 : BLOCK;
            for (int f = 0; f < fb; f++)
                u[f] = silu_clamp(a[f0 + f]);
            for (int f = 0; f < fb; f++)
                hr[f0 + f] = silu_of(a[f0 + f], u[f]) * g[f0 + f];
        }
    }
}

void nn_cpu_rope(int n, int height, int width, int heads, int tables, int q_dim,
                 const float *cos_t, const float *sin_t, float *t)
{
    int pairs = q_dim / 2, area = height * width;
    size_t table = (size_t)pairs * 361;
    for (int i = 0; i < n; i++)
        for (int pt = 0; pt < area; pt++) {
            int at = pt / width * 19 + pt % width;
            float *tp = t + ((size_t)i * area + pt) * heads * q_dim;
            for (int h = 0; h < heads; h++) {
                const float *c = cos_t + (size_t)(h * tables / heads) * table + at;
                const float *s = sin_t + (size_t)(h * tables / heads) * table + at;
                float *th = tp + (size_t)h * q_dim;
                for (int p = 0; p < pairs; p++) {
                    float v0 = th[2 * p], v1 = th[2 * p + 1], cp = c[p * 361], sp = s[p * 361];
                    th[2 * p] = v0 * cp - v1 * sp;
                    th[2 * p + 1] = v0 * sp + v1 * cp;
                }
            }
        }
}

/* Scores this far below a row's maximum weigh 0: e^-30 ~ 1e-13 is far below float's rounding of
 * the sum (which holds the maximum's 1), and the exact tiny weights would make denormal
 * products with the values (each costing a microcode assist: a real net's peaked attention
 * ran 15x slower). */
#define SOFTMAX_CUTOFF (-30.0f)
#define SOFTMAX_FLOOR 1e-13f    /* above e^-30 ~ 9.4e-14, below e^-29.9 */

/* Lanes of the softmax's max and sum: float reductions in C's order do not vectorise (GCC keeps
 * their rounding without -ffast-math), so each lane keeps its own. */
#define SOFTMAX_LANES 16

/* In place: each of `rows` rows of `cols` values becomes its softmax. */
CPU_CLONES
static void softmax_rows(int rows, int cols, float *x)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * cols, lane[SOFTMAX_LANES];
        int j0 = cols - cols % SOFTMAX_LANES;
        float max = xr[0], sum = 0;
        for (int l = 0; l < SOFTMAX_LANES; l++)
            lane[l] = max;
        for (int j = 0; j < j0; j += SOFTMAX_LANES)
            for (int l = 0; l < SOFTMAX_LANES; l++)
                lane[l] = xr[j + l] > lane[l] ? xr[j + l] : lane[l];
        for (int l = 0; l < SOFTMAX_LANES; l++)
            max = lane[l] > max ? lane[l] : max;
        for (int j = j0; j < cols; j++)
            max = xr[j] > max ? xr[j] : max;
        for (int j = 0; j < cols; j++) {
            float d = xr[j] - max;
            xr[j] = d < SOFTMAX_CUTOFF ? SOFTMAX_CUTOFF : d;
        }
        for (int j = 0; j < cols; j++)
            xr[j] = exp_core(xr[j]);
        for (int j = 0; j < cols; j++)   /* e^cutoff itself: 0 */
            xr[j] = xr[j] <= SOFTMAX_FLOOR ? 0.0f : xr[j];
        for (int l = 0; l < SOFTMAX_LANES; l++)
            lane[l] = 0;
        for (int j = 0; j < j0; j += SOFTMAX_LANES)
            for (int l = 0; l < SOFTMAX_LANES; l++)
                lane[l] += xr[j + l];
        for (int l = 0; l < SOFTMAX_LANES; l++)
            sum += lane[l];
        for (int j = j0; j < cols; j++)
            sum += xr[j];
        float inv = 1.0f / sum;
        for (int j = 0; j < cols; j++)
            xr[j] *= inv;
    }
}

unsigned nn_cpu_denormals_off(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | 0x8040);   /* flush to zero (bit 15), denormals are zero (bit 6) */
    return old;
#else
    return 0;
#endif
}

void nn_cpu_denormals_restore(unsigned state)
{
#if defined(__x86_64__) && defined(__GNUC__)
    _mm_setcsr(state);
#else
    (void)state;
#endif
}

size_t nn_cpu_pack_len(int k, int n) { return (size_t)wino_panels(n) * k * NN_WINO_NR; }

void nn_cpu_pack(int k, int n, const float *b, size_t ldb, bool transposed, float *packed)
{
    for (int jb = 0; jb < wino_panels(n); jb++)
        for (int i = 0; i < k; i++) {
            float *dst = packed + ((size_t)jb * k + i) * NN_WINO_NR;
            for (int q = 0; q < NN_WINO_NR; q++) {
                int j = jb * NN_WINO_NR + q;
                dst[q] = j >= n ? 0.0f : transposed ? b[(size_t)j * ldb + i] : b[(size_t)i * ldb + j];
            }
        }
}

void nn_cpu_gemm_packed(int k, int n, const float *packed, size_t rows, const float *a, bool add,
                        float *c)
{
    nn_cpu_init();
    if (!add) {
        panel_gemm(k, n, packed, rows, a, c, k > 64);
        return;
    }
    /* a few rows at a time through a stack buffer, added while they are in cache */
    float part[16384];
    size_t chunk = sizeof part / sizeof part[0] / (size_t)n;
    for (size_t r = 0; r < rows; r += chunk) {
        size_t m = rows - r < chunk ? rows - r : chunk;
        panel_gemm(k, n, packed, m, a + r * k, part, k > 64);
        float *cr = c + r * n;
        for (size_t i = 0; i < m * (size_t)n; i++)
            cr[i] += part[i];
    }
}

size_t nn_cpu_attention_scratch(int area, int q_dim, int v_dim)
{
    return (size_t)area * area + (size_t)area * (q_dim + v_dim) + nn_cpu_pack_len(q_dim, area) +
           nn_cpu_pack_len(area, v_dim);
}

void nn_cpu_attention(int area, int heads, int kv_heads, int q_dim, int v_dim, const float *q,
                      const float *k, const float *v, float *scratch, float *o)
{
    int group = heads / kv_heads, ldq = heads * q_dim, ldk = kv_heads * q_dim;
    int ldv = kv_heads * v_dim, ldo = heads * v_dim;
    float *scores = scratch, *qh = scores + (size_t)area * area, *oh = qh + (size_t)area * q_dim;
    float *kp = oh + (size_t)area * v_dim, *vp = kp + nn_cpu_pack_len(q_dim, area);
    float scale = 1.0f / sqrtf((float)q_dim);
    for (int h = 0; h < heads; h++) {
        int kvh = h / group;
        if (h % group == 0) {
            nn_cpu_pack(q_dim, area, k + (size_t)kvh * q_dim, (size_t)ldk, true, kp);
            nn_cpu_pack(area, v_dim, v + (size_t)kvh * v_dim, (size_t)ldv, false, vp);
        }
        for (int i = 0; i < area; i++)   /* the scale on the way */
            for (int d = 0; d < q_dim; d++)
                qh[(size_t)i * q_dim + d] = q[(size_t)i * ldq + (size_t)h * q_dim + d] * scale;
        nn_cpu_gemm_packed(q_dim, area, kp, (size_t)area, qh, false, scores);
        softmax_rows(area, area, scores);
        nn_cpu_gemm_packed(area, v_dim, vp, (size_t)area, scores, false, oh);
        for (int i = 0; i < area; i++)
            memcpy(o + (size_t)i * ldo + (size_t)h * v_dim, oh + (size_t)i * v_dim,
                   sizeof *oh * v_dim);
    }
}

CPU_CLONES
void nn_cpu_kata_pool(int n, int c, int area, const float *x, int value_head, float *out)
{
    double scale = (sqrt((double)area) - 14.0) * 0.1;
    double sum[NN_CPU_MAX_CHANNELS];
    float max[NN_CPU_MAX_CHANNELS];
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * area * c;
        for (int ch = 0; ch < c; ch++) {
            sum[ch] = 0;
            max[ch] = xi[ch];
        }
        for (int p = 0; p < area; p++)
            for (int ch = 0; ch < c; ch++) {
                float v = xi[(size_t)p * c + ch];
                sum[ch] += v;
                max[ch] = v > max[ch] ? v : max[ch];
            }
        float *o = out + (size_t)i * 3 * c;
        for (int ch = 0; ch < c; ch++) {
            double mean = sum[ch] / area;
            o[ch] = (float)mean;
            o[c + ch] = (float)(mean * scale);
            o[2 * c + ch] = value_head ? (float)(mean * (scale * scale - 0.1)) : max[ch];
        }
    }
}

void nn_cpu_transpose(int n, int rows, int cols, const float *src, float *dst)
{
    size_t plane = (size_t)rows * cols;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < rows; r++)
            for (int q = 0; q < cols; q++)
                dst[i * plane + (size_t)q * rows + r] = src[i * plane + (size_t)r * cols + q];
}
