/* nn/cpu/blas_ops.c -- float32 layers on OpenBLAS (see blas_ops.h). */
#include "nn/cpu/blas_ops.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const nn_ops nn_cpu_ops = {"cpu", nn_cpu_conv, nn_cpu_bn_act, nn_cpu_matmul};

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void cpu_single_thread(void) { openblas_set_num_threads(1); }

void nn_cpu_init(void) { pthread_once(&cpu_once, cpu_single_thread); }

/* The calling thread's im2col buffer: [c_in * ky * kx][h * w] floats. */
static _Thread_local float *scratch;
static _Thread_local size_t scratch_floats;

static float *scratch_get(const char *layer, size_t floats)
{
    if (floats > scratch_floats) {
        float *grown = realloc(scratch, sizeof *grown * floats);
        if (!grown) {
            fprintf(stderr, "%s: %s: out of memory for %zu floats of im2col scratch\n", __func__,
                    layer, floats);
            abort();
        }
        scratch = grown;
        scratch_floats = floats;
    }
    return scratch;
}

void nn_cpu_scratch_free(void)
{
    free(scratch);
    scratch = NULL;
    scratch_floats = 0;
}

/* col[(i * ky + dy) * kx + dx][r * w + col] = x[i][r + dy * dil_y - py][col + dx * dil_x - px],
 * zero off the plane. */
static void im2col(const nn_conv_desc *c, int h, int w, const float *x, float *col)
{
    int py = (c->ky / 2) * c->dil_y, px = (c->kx / 2) * c->dil_x;
    size_t area = (size_t)h * w;
    for (int i = 0; i < c->c_in; i++) {
        const float *xi = x + i * area;
        for (int dy = 0; dy < c->ky; dy++)
            for (int dx = 0; dx < c->kx; dx++) {
                float *out = col + ((size_t)(i * c->ky + dy) * c->kx + dx) * area;
                int sx = dx * c->dil_x - px;
                /* output columns [lo, hi) read inside the plane */
                int lo = sx < 0 ? (-sx < w ? -sx : w) : 0, hi = sx > 0 ? w - sx : w;
                hi = hi < lo ? lo : hi;
                for (int r = 0; r < h; r++) {
                    float *o = out + (size_t)r * w;
                    int rr = r + dy * c->dil_y - py;
                    if (rr < 0 || rr >= h) {
                        memset(o, 0, sizeof *o * (size_t)w);
                        continue;
                    }
                    memset(o, 0, sizeof *o * (size_t)lo);
                    if (hi > lo)
                        memcpy(o + lo, xi + (size_t)rr * w + lo + sx,
                               sizeof *o * (size_t)(hi - lo));
                    memset(o + hi, 0, sizeof *o * (size_t)(w - hi));
                }
            }
    }
}

void nn_cpu_conv(const nn_conv_desc *c, int h, int w, const float *x, float *y)
{
    int area = h * w, k = c->c_in * c->ky * c->kx;
    const float *b = x;
    if (c->ky != 1 || c->kx != 1) {
        float *col = scratch_get(c->name, (size_t)k * (size_t)area);
        im2col(c, h, w, x, col);
        b = col;
    }
    /* y starts as the bias (beta = 1) rather than trusting beta = 0 to ignore what y held */
    for (int o = 0; o < c->c_out; o++)
        for (int i = 0; i < area; i++)
            y[(size_t)o * area + i] = c->bias ? c->bias[o] : 0.0f;
    /* y[c_out][area] += w[c_out][k] * col[k][area] */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->c_out, area, k, 1.0f, c->w, k, b,
                area, 1.0f, y, area);
}

static float mish(float v)
{
    /* v * tanh(softplus(v)), written as v * ((1 + e^v)^2 - 1) / ((1 + e^v)^2 + 1) */
    if (v > 20.0f)
        return v;
    float e = expf(v), n = e * (e + 2.0f);
    return v * n / (n + 2.0f);
}

void nn_cpu_bn_act(const nn_bn_desc *b, nn_activation act, int h, int w, const float *mask,
                   float *x)
{
    size_t area = (size_t)h * w;
    for (int ch = 0; ch < b->c; ch++) {
        /* y = x * a + s with a = scale / sqrt(var + eps), s = bias - mean * a */
        double inv = 1.0 / sqrt((double)b->var[ch] + (double)b->eps);
        double a = inv * (b->scale ? b->scale[ch] : 1.0);
        float af = (float)a, sf = (float)((b->bias ? b->bias[ch] : 0.0) - b->mean[ch] * a);
        float *xc = x + ch * area;
        switch (act) {
        case NN_ACT_RELU:
            for (size_t i = 0; i < area; i++) {
                float v = xc[i] * af + sf;
                xc[i] = v > 0.0f ? v : 0.0f;
            }
            break;
        case NN_ACT_MISH:
            for (size_t i = 0; i < area; i++)
                xc[i] = mish(xc[i] * af + sf);
            break;
        case NN_ACT_IDENTITY:
            for (size_t i = 0; i < area; i++)
                xc[i] = xc[i] * af + sf;
            break;
        }
        if (mask)
            for (size_t i = 0; i < area; i++)
                if (mask[i] == 0.0f)
                    xc[i] = 0.0f;
    }
}

void nn_cpu_matmul(const nn_matmul_desc *m, const float *x, float *y)
{
    for (int o = 0; o < m->c_out; o++)
        y[o] = m->bias ? m->bias[o] : 0.0f;
    /* y += w^T x with w [c_in][c_out] row-major */
    cblas_sgemv(CblasRowMajor, CblasTrans, m->c_in, m->c_out, 1.0f, m->w, m->c_out, x, 1, 1.0f,
                y, 1);
}
