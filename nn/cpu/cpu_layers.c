/* nn/cpu/cpu_layers.c -- batched float32 layers on OpenBLAS (see cpu_layers.h).
 *
 * The loops over channels are written for the compiler to vectorise. The build targets plain
 * x86-64 (SSE2), so on GCC the hot functions are also compiled for AVX2 and
 * picked at load time by the CPU they run on (target_clones). */
#include "nn/cpu/cpu_layers.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CPU_CLONES
#endif

/* Channels per pass of the tile transforms: the 36-point tiles of one pass (a few arrays of
 * 36 x 32 floats) stay in L1. */
#define BLOCK 32

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void cpu_single_thread(void) { openblas_set_num_threads(1); }

void nn_cpu_init(void) { pthread_once(&cpu_once, cpu_single_thread); }

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

float nn_cpu_activate(nn_activation act, float v)
{
    switch (act) {
    case NN_ACT_RELU:
        return v > 0.0f ? v : 0.0f;
    case NN_ACT_MISH:
        return mish_of(v, mish_clamp(v));
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

size_t nn_cpu_wino_tiles(int n, int size)
{
    size_t t = (size_t)(size + NN_WINO_OUT - 1) / NN_WINO_OUT;
    return (size_t)n * t * t;
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
    size_t plane = (size_t)c_out * c_in;
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
                    u[(size_t)(r * 6 + col) * plane + (size_t)i * c_out + o] = (float)s;
                }
        }
}

/* B^T applied to six rows of cb channels: in + j * s, j = 0..5 -> out + j * o. */
static inline void wino_bt(int cb, const float *restrict in, size_t s, float *restrict out,
                           size_t o)
{
    for (int ch = 0; ch < cb; ch++) {
        float d0 = in[ch], d1 = in[s + ch], d2 = in[2 * s + ch], d3 = in[3 * s + ch];
        float d4 = in[4 * s + ch], d5 = in[5 * s + ch];
        out[ch] = 4.0f * d0 - 5.0f * d2 + d4;
        out[o + ch] = -4.0f * (d1 + d2) + d3 + d4;
        out[2 * o + ch] = 4.0f * (d1 - d2) - d3 + d4;
        out[3 * o + ch] = 2.0f * (d3 - d1) - d2 + d4;
        out[4 * o + ch] = 2.0f * (d1 - d3) - d2 + d4;
        out[5 * o + ch] = 4.0f * d1 - 5.0f * d3 + d5;
    }
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

/* cb floats; the full-block case is a fixed-size copy the compiler turns into vector moves
 * rather than a library call. */
static inline void copy_block(float *restrict dst, const float *restrict src, int cb)
{
    if (cb == BLOCK)
        memcpy(dst, src, sizeof(float) * BLOCK);
    else
        memcpy(dst, src, sizeof(float) * (size_t)cb);
}

/* v[k][p][ch] = (B^T d B)[k] of every tile p of every image, d read through pre. Points off
 * the board read zeros (not put through pre). */
CPU_CLONES
static void wino_input(int c, int size, int n, const float *x, const nn_cpu_affine *pre,
                       float *v)
{
    int t = (size + NN_WINO_OUT - 1) / NN_WINO_OUT;
    size_t area = (size_t)size * size, tiles = nn_cpu_wino_tiles(n, size);
    float d[36][BLOCK], tmp[36][BLOCK], out[36][BLOCK];
    for (int i = 0; i < n; i++)
        for (int ty = 0; ty < t; ty++)
            for (int tx = 0; tx < t; tx++) {
                size_t p = ((size_t)i * t + ty) * t + tx;
                const float *src[36];
                bool on[36];
                for (int r = 0; r < 6; r++)
                    for (int col = 0; col < 6; col++) {
                        int k = r * 6 + col;
                        int yy = ty * NN_WINO_OUT + r - 1, xx = tx * NN_WINO_OUT + col - 1;
                        on[k] = yy >= 0 && yy < size && xx >= 0 && xx < size;
                        src[k] = on[k] ? x + ((size_t)i * area + (size_t)yy * size + xx) * c
                                       : zeros;
                    }
                for (int c0 = 0; c0 < c; c0 += BLOCK) {
                    int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
                    for (int k = 0; k < 36; k++) {
                        if (pre && on[k])
                            finish(pre->act, cb, src[k] + c0, pre->scale + c0, pre->shift + c0,
                                   NULL, d[k]);
                        else
                            copy_block(d[k], src[k] + c0, cb);
                    }
                    for (int col = 0; col < 6; col++)   /* columns: B^T d */
                        wino_bt(cb, d[col], 6 * BLOCK, tmp[col], 6 * BLOCK);
                    for (int r = 0; r < 6; r++)         /* rows: (B^T d) B */
                        wino_bt(cb, tmp[6 * r], BLOCK, out[6 * r], BLOCK);
                    for (int k = 0; k < 36; k++)
                        copy_block(v + ((size_t)k * tiles + p) * c + c0, out[k], cb);
                }
            }
}

/* y = epilogue(A^T m A) for every tile; points past the board edge are dropped. Leaves m all
 * zeros (see nn_cpu_wino_conv). */
CPU_CLONES
static void wino_output(int c, int size, int n, float *m, const nn_cpu_epilogue *e, float *y)
{
    int t = (size + NN_WINO_OUT - 1) / NN_WINO_OUT;
    size_t area = (size_t)size * size, tiles = nn_cpu_wino_tiles(n, size);
    size_t kstride = tiles * c;
    float a[NN_CPU_MAX_CHANNELS], b[NN_CPU_MAX_CHANNELS];
    float tmp[24][BLOCK], out[16][BLOCK];
    for (int i = 0; i < n; i++) {
        epilogue_coeffs(e, i, c, a, b);
        for (int ty = 0; ty < t; ty++)
            for (int tx = 0; tx < t; tx++) {
                size_t p = ((size_t)i * t + ty) * t + tx;
                int y0 = ty * NN_WINO_OUT, x0 = tx * NN_WINO_OUT;
                int rows = size - y0 < NN_WINO_OUT ? size - y0 : NN_WINO_OUT;
                int cols = size - x0 < NN_WINO_OUT ? size - x0 : NN_WINO_OUT;
                for (int c0 = 0; c0 < c; c0 += BLOCK) {
                    int cb = c - c0 < BLOCK ? c - c0 : BLOCK;
                    for (int col = 0; col < 6; col++)   /* columns: A^T m, read from m */
                        wino_at(cb, m + (col * tiles + p) * c + c0, 6 * kstride, tmp[col],
                                6 * BLOCK);
                    for (int k = 0; k < 36; k++)        /* the lines are in cache now */
                        copy_block(m + ((size_t)k * tiles + p) * c + c0, zeros, cb);
                    for (int r = 0; r < 4; r++)         /* rows: (A^T m) A */
                        wino_at(cb, tmp[6 * r], BLOCK, out[4 * r], BLOCK);
                    for (int r = 0; r < rows; r++)
                        for (int col = 0; col < cols; col++) {
                            size_t at = ((size_t)i * area + (size_t)(y0 + r) * size + x0 + col) *
                                            c + c0;
                            finish(e->act, cb, out[4 * r + col], a + c0, b + c0,
                                   e->residual ? e->residual + at : NULL, y + at);
                        }
                }
            }
    }
}

void nn_cpu_wino_conv(int c_in, int c_out, const float *u, int n, int size, const float *x,
                      const nn_cpu_affine *pre, const nn_cpu_epilogue *e, float *v, float *m,
                      float *y)
{
    size_t tiles = nn_cpu_wino_tiles(n, size);
    wino_input(c_in, size, n, x, pre, v);
    /* beta = 1 onto the zeros the last output transform left: OpenBLAS then skips its separate
     * pass zeroing m (beta = 0), 5% of the time */
    for (int k = 0; k < NN_WINO_POINTS; k++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)tiles, c_out, c_in, 1.0f,
                    v + (size_t)k * tiles * c_in, c_in, u + (size_t)k * c_in * c_out, c_out,
                    1.0f, m + (size_t)k * tiles * c_out, c_out);
    wino_output(c_out, size, n, m, e, y);
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

void nn_cpu_gemm_weights(const nn_conv_desc *c, float *w)
{
    for (int o = 0; o < c->c_out; o++)
        for (int i = 0; i < c->c_in; i++)
            for (int dy = 0; dy < c->ky; dy++)
                for (int dx = 0; dx < c->kx; dx++)
                    w[(((size_t)o * c->ky + dy) * c->kx + dx) * c->c_in + i] =
                        c->w[(((size_t)o * c->c_in + i) * c->ky + dy) * c->kx + dx];
}

size_t nn_cpu_gemm_conv_scratch(const nn_conv_desc *c, int n, int size)
{
    size_t rows = (size_t)n * size * size, k = (size_t)c->c_in * c->ky * c->kx;
    return rows * ((size_t)c->c_in + (c->ky * c->kx > 1 ? k : 0) + (size_t)c->c_out);
}

/* col[i][y][x][(dy * kx + dx) * c_in + ci] = x[i][y + dy * dil_y - py][x + dx * dil_x - px][ci],
 * zero off the board. */
static void im2col(const nn_conv_desc *c, int n, int size, const float *x, float *col)
{
    int py = (c->ky / 2) * c->dil_y, px = (c->kx / 2) * c->dil_x;
    size_t area = (size_t)size * size, ci = (size_t)c->c_in, k = ci * c->ky * c->kx;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < size; r++)
            for (int q = 0; q < size; q++) {
                float *row = col + ((size_t)i * area + (size_t)r * size + q) * k;
                for (int dy = 0; dy < c->ky; dy++)
                    for (int dx = 0; dx < c->kx; dx++) {
                        int yy = r + dy * c->dil_y - py, xx = q + dx * c->dil_x - px;
                        float *dst = row + ((size_t)dy * c->kx + dx) * ci;
                        if (yy >= 0 && yy < size && xx >= 0 && xx < size)
                            memcpy(dst, x + ((size_t)i * area + (size_t)yy * size + xx) * ci,
                                   sizeof *dst * ci);
                        else
                            memset(dst, 0, sizeof *dst * ci);
                    }
            }
}

void nn_cpu_gemm_conv(const nn_conv_desc *c, const float *w, int n, int size, const float *x,
                      const nn_cpu_affine *pre, const nn_cpu_epilogue *e, float *scratch,
                      float *y)
{
    size_t area = (size_t)size * size, rows = (size_t)n * area;
    int k = c->c_in * c->ky * c->kx;
    bool one = c->ky * c->kx == 1;
    float *in = scratch, *col = in + rows * c->c_in, *out = col + (one ? 0 : rows * k);
    if (pre) {
        nn_cpu_affine_apply(pre, rows, c->c_in, x, in);
        x = in;
    }
    if (!one)
        im2col(c, n, size, x, col);
    /* out[rows][c_out] = col[rows][k] . w[c_out][k]^T, then the epilogue writes y, so the
     * residual may be y itself */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, c->c_out, k, 1.0f,
                one ? x : col, k, w, k, 0.0f, out, c->c_out);
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
