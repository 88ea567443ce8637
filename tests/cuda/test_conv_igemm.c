/* tests/cuda/test_conv_igemm.c -- shido's implicit-GEMM tensor-core convolution and the
 * standalone epilogue (nn/cuda/kernels/conv_igemm.h) against a plain CPU convolution with double
 * accumulation: awkward channel counts (1, 7, 96, 384), boards 9/13/19, batches 1/3/17, every
 * epilogue field on and off, the residual aliasing the output, every tile configuration, the
 * unaligned (scalar) paths, and guard bands around every output. Inputs, weights and residuals
 * are rounded to half precision before the reference sees them, so the tolerance only has to
 * cover fp32 accumulation and the final rounding to half.
 *
 * Without a device the GPU tests print why they are skipped; no CUDA call happens before Check
 * forks (each test asks for the device itself). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "nn/cuda/cuda_device.h"
#include "nn/cuda/kernels/conv_igemm.h"
#include "tests/common.h"

#define GUARD 64                 /* elements of guard band on each side of an output */
#define GUARD_F16 0x7e5au        /* a NaN payload no kernel writes */
#define GUARD_F32 0x7fc0dead
#define MAX_REPORTS 10

/* ---- IEEE half on the host (round to nearest even) ---- */

static uint16_t half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return sign | 0x7e00u;
    if (ax >= 0x477ff000u)   /* >= 65520 rounds to infinity */
        return sign | 0x7c00u;
    if (ax < 0x38800000u) {  /* below 2^-14: a subnormal half, a multiple of 2^-24 */
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

static float round_half(float f)
{
    return test_half_to_float(half_from_float(f));
}

START_TEST(half_conversion_round_trips)
{
    ck_assert_uint_eq(half_from_float(1.0f), 0x3c00u);
    ck_assert_uint_eq(half_from_float(-2.0f), 0xc000u);
    ck_assert_uint_eq(half_from_float(65504.0f), 0x7bffu);
    ck_assert_uint_eq(half_from_float(65520.0f), 0x7c00u);
    ck_assert_uint_eq(half_from_float(ldexpf(1.0f, -24)), 0x0001u);
    ck_assert_uint_eq(half_from_float(1.0f + ldexpf(1.0f, -11)), 0x3c00u);   /* tie to even */
    ck_assert_uint_eq(half_from_float(1.0f + 3 * ldexpf(1.0f, -11)), 0x3c02u);
    for (uint32_t h = 0; h < 0x7c00u; h++)
        ck_assert_uint_eq(half_from_float(test_half_to_float((uint16_t)h)), h);
}
END_TEST

/* ---- test data ---- */

static uint64_t rng_state;

static float uniform(float lo, float hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(rng_state >> 11) / 9007199254740992.0;
    return lo + (float)u * (hi - lo);
}

enum {
    EP_SCALE = 1, EP_BIAS = 2, EP_BIAS_NC = 4, EP_RESIDUAL = 8, EP_ALIAS = 16, EP_MASK = 32,
    EP_OUT2 = 64, EP_SCALE2 = 128, EP_BIAS2 = 256,
    EP_ALL = EP_SCALE | EP_BIAS | EP_BIAS_NC | EP_RESIDUAL | EP_MASK | EP_OUT2 | EP_SCALE2 |
             EP_BIAS2,
    EP_ALL_ALIAS = EP_ALL | EP_ALIAS,
};

/* Host copies of the epilogue's inputs, in the rounding the device sees. */
typedef struct host_epilogue {
    unsigned fields;
    int act, act2;
    float *scale, *bias, *bias_nc, *residual, *mask, *scale2, *bias2;
} host_epilogue;

static float *random_floats(size_t count, float lo, float hi, bool to_half)
{
    float *p = malloc(count * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < count; i++)
        p[i] = to_half ? round_half(uniform(lo, hi)) : uniform(lo, hi);
    return p;
}

/* Board masks of KataGo's mixed-size batches: image i holds a board of size - 2 * (i % 3)
 * (at least 1) in the top-left corner of the size x size buffer. */
static float *board_masks(int n, int size)
{
    float *m = malloc((size_t)n * size * size * sizeof *m);
    ck_assert_ptr_nonnull(m);
    for (int i = 0; i < n; i++) {
        int b = size - 2 * (i % 3);
        if (b < 1)
            b = 1;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++)
                m[((size_t)i * size + y) * size + x] = (y < b && x < b) ? 1.0f : 0.0f;
    }
    return m;
}

static void host_epilogue_init(host_epilogue *h, unsigned fields, int act, int act2, int n,
                               int size, int c, bool half_residual)
{
    memset(h, 0, sizeof *h);
    h->fields = fields;
    h->act = act;
    h->act2 = act2;
    size_t count = (size_t)n * size * size * c;
    if (fields & EP_SCALE)
        h->scale = random_floats((size_t)c, 0.5f, 1.5f, false);
    if (fields & EP_BIAS)
        h->bias = random_floats((size_t)c, -0.5f, 0.5f, false);
    if (fields & EP_BIAS_NC)
        h->bias_nc = random_floats((size_t)n * c, -0.5f, 0.5f, false);
    if (fields & (EP_RESIDUAL | EP_ALIAS))
        h->residual = random_floats(count, -1.0f, 1.0f, half_residual);
    if (fields & EP_MASK)
        h->mask = board_masks(n, size);
    if (fields & EP_SCALE2)
        h->scale2 = random_floats((size_t)c, 0.5f, 1.5f, false);
    if (fields & EP_BIAS2)
        h->bias2 = random_floats((size_t)c, -0.5f, 0.5f, false);
}

static void host_epilogue_free(host_epilogue *h)
{
    free(h->scale);
    free(h->bias);
    free(h->bias_nc);
    free(h->residual);
    free(h->mask);
    free(h->scale2);
    free(h->bias2);
}

/* ---- the reference (double) ---- */

static double ref_activate(int act, double v)
{
    if (act == 1)
        return v > 0 ? v : 0;
    if (act == 2)
        return v * tanh(v > 20 ? v : log1p(exp(v)));
    if (act == 3)
        return v / (1.0 + exp(-v));
    return v;
}

/* Applies the epilogue to acc[n*points][c] (the convolution, or the values already in out);
 * writes ref and ref2 (ref2 only with EP_OUT2). */
static void ref_epilogue(const host_epilogue *h, const double *acc, int n, int points, int c,
                         double *ref, double *ref2)
{
    for (size_t m = 0; m < (size_t)n * points; m++)
        for (int ch = 0; ch < c; ch++) {
            size_t e = m * (size_t)c + (size_t)ch;
            double v = acc[e];
            if (h->scale)
                v *= h->scale[ch];
            if (h->bias)
                v += h->bias[ch];
            if (h->bias_nc)
                v += h->bias_nc[m / (size_t)points * (size_t)c + (size_t)ch];
            if (h->residual)
                v += h->residual[e];
            double mask = h->mask ? h->mask[m] : 1.0;
            v = ref_activate(h->act, v) * mask;
            ref[e] = v;
            if (h->fields & EP_OUT2) {
                double w = v * (h->scale2 ? h->scale2[ch] : 1.0) + (h->bias2 ? h->bias2[ch] : 0.0);
                ref2[e] = ref_activate(h->act2, w) * mask;
            }
        }
}

/* conv[n][y][x][co] = sum over taps and ci of in[n][y+dy][x+dx][ci] * w[co][ci][dy][dx]. */
static double *ref_conv(const float *in, const float *w, int n, int size, int c_in, int c_out,
                        int k)
{
    int pad = k / 2;
    double *out = calloc((size_t)n * size * size * c_out, sizeof *out);
    double *wt = malloc((size_t)k * k * c_in * c_out * sizeof *wt);   /* [tap][ci][co] */
    ck_assert(out && wt);
    for (int co = 0; co < c_out; co++)
        for (int ci = 0; ci < c_in; ci++)
            for (int t = 0; t < k * k; t++)
                wt[((size_t)t * c_in + ci) * c_out + co] = w[((size_t)co * c_in + ci) * k * k + t];
    for (int i = 0; i < n; i++)
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                double *o = out + (((size_t)i * size + y) * size + x) * c_out;
                for (int t = 0; t < k * k; t++) {
                    int yy = y + t / k - pad, xx = x + t % k - pad;
                    if (yy < 0 || yy >= size || xx < 0 || xx >= size)
                        continue;
                    const float *a = in + (((size_t)i * size + yy) * size + xx) * c_in;
                    for (int ci = 0; ci < c_in; ci++) {
                        const double *wr = wt + ((size_t)t * c_in + ci) * c_out;
                        for (int co = 0; co < c_out; co++)
                            o[co] += (double)a[ci] * wr[co];
                    }
                }
            }
    free(wt);
    return out;
}

/* ---- device buffers ---- */

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    ck_assert_msg(cudaMalloc(&p, bytes) == cudaSuccess, "cudaMalloc(%zu)", bytes);
    return p;
}

static void *dev_copy(const void *host, size_t bytes)
{
    void *p = dev_alloc(bytes);
    ck_assert(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    return p;
}

static const float *dev_floats(const float *host, size_t count, void **keep)
{
    *keep = host ? dev_copy(host, count * sizeof(float)) : NULL;
    return *keep;
}

/* The epilogue's device copies; residual_dev is filled by the caller (its type varies). */
typedef struct dev_epilogue {
    void *scale, *bias, *bias_nc, *mask, *scale2, *bias2;
} dev_epilogue;

static nn_cuda_epilogue dev_epilogue_init(dev_epilogue *d, const host_epilogue *h, int n,
                                          int size, int c)
{
    nn_cuda_epilogue ep;
    memset(&ep, 0, sizeof ep);
    ep.scale = dev_floats(h->scale, (size_t)c, &d->scale);
    ep.bias = dev_floats(h->bias, (size_t)c, &d->bias);
    ep.bias_nc = dev_floats(h->bias_nc, (size_t)n * c, &d->bias_nc);
    ep.mask = dev_floats(h->mask, (size_t)n * size * size, &d->mask);
    ep.scale2 = dev_floats(h->scale2, (size_t)c, &d->scale2);
    ep.bias2 = dev_floats(h->bias2, (size_t)c, &d->bias2);
    ep.act = h->act;
    ep.act2 = h->act2;
    return ep;
}

static void dev_epilogue_free(dev_epilogue *d)
{
    cudaFree(d->scale);
    cudaFree(d->bias);
    cudaFree(d->bias_nc);
    cudaFree(d->mask);
    cudaFree(d->scale2);
    cudaFree(d->bias2);
}

/* An output with guard bands: `count` elements of `elem` bytes starting `offset` elements past
 * GUARD, the rest filled with the guard pattern. */
typedef struct guarded {
    void *dev;
    size_t count, elem, offset, total;
} guarded;

static void guarded_init(guarded *g, size_t count, size_t elem, size_t offset, const void *init)
{
    g->count = count;
    g->elem = elem;
    g->offset = offset;
    g->total = GUARD + offset + count + GUARD;
    unsigned char *host = malloc(g->total * elem);
    ck_assert_ptr_nonnull(host);
    for (size_t i = 0; i < g->total; i++) {
        if (elem == 2) {
            uint16_t v = GUARD_F16;
            memcpy(host + i * 2, &v, 2);
        } else {
            uint32_t v = GUARD_F32;
            memcpy(host + i * 4, &v, 4);
        }
    }
    if (init)
        memcpy(host + (GUARD + offset) * elem, init, count * elem);
    g->dev = dev_copy(host, g->total * elem);
    free(host);
}

static void *guarded_data(const guarded *g)
{
    return (unsigned char *)g->dev + (GUARD + g->offset) * g->elem;
}

/* Copies the output back, checks that every guard element is untouched, and returns the data
 * as floats (caller frees). */
static float *guarded_fetch(const guarded *g, const char *what)
{
    unsigned char *host = malloc(g->total * g->elem);
    float *data = malloc(g->count * sizeof *data);
    ck_assert(host && data);
    ck_assert(cudaMemcpy(host, g->dev, g->total * g->elem, cudaMemcpyDeviceToHost) ==
              cudaSuccess);
    for (size_t i = 0; i < g->total; i++) {
        if (i >= GUARD + g->offset && i < GUARD + g->offset + g->count)
            continue;
        uint32_t v = 0;
        memcpy(&v, host + i * g->elem, g->elem);
        ck_assert_msg(v == (g->elem == 2 ? GUARD_F16 : GUARD_F32),
                      "%s: guard element %zd (relative to the output) overwritten", what,
                      (ptrdiff_t)i - (ptrdiff_t)(GUARD + g->offset));
    }
    for (size_t i = 0; i < g->count; i++) {
        const unsigned char *p = host + (GUARD + g->offset + i) * g->elem;
        if (g->elem == 2) {
            uint16_t h;
            memcpy(&h, p, 2);
            data[i] = test_half_to_float(h);
        } else {
            memcpy(&data[i], p, 4);
        }
    }
    free(host);
    return data;
}

/* Compares got with ref (|got - ref| <= atol + rtol |ref|, NaN and infinity must match); prints
 * at most MAX_REPORTS mismatches with (n, c, y, x) and fails the test if there is any. */
static void compare(const char *what, const float *got, const double *ref, int n, int size, int c,
                    double rtol, double atol)
{
    size_t count = (size_t)n * size * size * c, bad = 0;
    double worst = 0;
    for (size_t e = 0; e < count; e++) {
        double g = got[e], r = ref[e], err = fabs(g - r);
        bool ok = (isnan(g) || isnan(r)) ? (isnan(g) && isnan(r))
                  : (isinf(g) || isinf(r)) ? g == r
                                           : err <= atol + rtol * fabs(r);
        if (!isnan(err) && err > worst)
            worst = err;
        if (ok)
            continue;
        if (bad++ < MAX_REPORTS) {
            size_t m = e / (size_t)c;
            int p = (int)(m % (size_t)(size * size));
            printf("%s: mismatch at (n %zu, c %zu, y %d, x %d): got %.6g, expected %.6g\n", what,
                   m / (size_t)(size * size), e % (size_t)c, p / size, p % size, g, r);
        }
    }
    ck_assert_msg(bad == 0, "%s: %zu of %zu elements out of tolerance (worst |error| %.3g)", what,
                  bad, count, worst);
}

/* ---- convolution cases ---- */

typedef struct conv_case {
    int k, c_in, c_out, size, batch;
    unsigned fields;
    int act, act2;
    int config;               /* -1: the launcher's choice */
    int in_offset, out_offset; /* elements: 1 makes the pointer unaligned (scalar paths) */
} conv_case;

static const conv_case conv_cases[] = {
    /* shapes: every channel count, board size and batch of the sweep, BN + relu */
    {3, 1, 1, 9, 1, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 7, 7, 13, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 96, 96, 19, 17, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 384, 96, 19, 1, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 384, 7, 9, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 96, 1, 13, 17, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 7, 96, 19, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {3, 1, 96, 13, 1, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 1, 7, 13, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 7, 1, 9, 17, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 96, 96, 19, 17, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 384, 96, 19, 17, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 384, 1, 19, 1, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 96, 7, 19, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    {1, 7, 96, 9, 3, EP_SCALE | EP_BIAS, 1, 0, -1, 0, 0},
    /* each epilogue field alone, then all of them, on one shape */
    {3, 96, 96, 13, 3, 0, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_SCALE, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_BIAS, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_BIAS_NC, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_RESIDUAL, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_ALIAS, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_MASK, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, 0, 1, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, 0, 2, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, 0, 3, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_OUT2, 0, 0, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_OUT2 | EP_SCALE2 | EP_BIAS2, 0, 2, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_ALL, 1, 2, -1, 0, 0},
    {3, 96, 96, 13, 3, EP_ALL_ALIAS, 2, 1, -1, 0, 0},
    {1, 7, 7, 13, 17, EP_ALL_ALIAS, 2, 2, -1, 0, 0},
    {1, 192, 576, 19, 3, EP_ALL_ALIAS, 3, 3, -1, 0, 0},   /* a transformer projection, SiLU */
    /* every tile configuration: ragged M, ragged N (160 = 128 + 32), vector and scalar gathers */
    {3, 96, 160, 13, 3, EP_ALL_ALIAS, 2, 1, 0, 0, 0},
    {3, 96, 160, 13, 3, EP_ALL_ALIAS, 2, 1, 1, 0, 0},
    {3, 96, 160, 13, 3, EP_ALL_ALIAS, 2, 1, 2, 0, 0},
    {3, 96, 160, 13, 3, EP_ALL_ALIAS, 2, 1, 3, 0, 0},
    {3, 7, 96, 9, 17, EP_ALL, 1, 2, 0, 0, 0},
    {3, 7, 96, 9, 17, EP_ALL, 1, 2, 1, 0, 0},
    {3, 7, 96, 9, 17, EP_ALL, 1, 2, 2, 0, 0},
    {3, 7, 96, 9, 17, EP_ALL, 1, 2, 3, 0, 0},
    /* unaligned input (scalar gather at c_in 96) and output (scalar epilogue at c_out 96) */
    {3, 96, 96, 9, 3, EP_ALL, 2, 1, -1, 1, 0},
    {3, 96, 96, 9, 3, EP_ALL, 2, 1, -1, 0, 1},
};
#define NUM_CONV_CASES ((int)(sizeof conv_cases / sizeof conv_cases[0]))

START_TEST(conv_matches_reference)
{
    if (!test_cuda_device_present("conv_igemm tests"))
        return;
    const conv_case *t = &conv_cases[_i];
    char what[160];
    snprintf(what, sizeof what, "case %d: k %d, %d -> %d, %dx%d, batch %d, fields 0x%x, act %d/%d, "
             "config %d", _i, t->k, t->c_in, t->c_out, t->size, t->size, t->batch, t->fields,
             t->act, t->act2, t->config);
    rng_state = 0x5eed0000u + (uint64_t)_i;
    const int n = t->batch, size = t->size, points = size * size;
    const size_t m_total = (size_t)n * points;
    const size_t in_count = m_total * t->c_in, out_count = m_total * t->c_out;
    const size_t w_count = (size_t)t->c_out * t->c_in * t->k * t->k;

    /* inputs and weights in half precision; weights ~ 1/sqrt(K) keep outputs of order 1 */
    float *in = random_floats(in_count, -1.0f, 1.0f, true);
    float wscale = sqrtf(3.0f / (float)(t->c_in * t->k * t->k));
    float *w = random_floats(w_count, -wscale, wscale, true);
    host_epilogue h;
    host_epilogue_init(&h, t->fields, t->act, t->act2, n, size, t->c_out, true);

    uint16_t *in16 = calloc(in_count + 1, sizeof *in16);   /* + 1: the unaligned case */
    ck_assert_ptr_nonnull(in16);
    for (size_t i = 0; i < in_count; i++)
        in16[t->in_offset + i] = half_from_float(in[i]);
    void *in_dev = dev_copy(in16, (in_count + 1) * sizeof *in16);

    size_t wbytes = nn_cuda_conv_igemm_weight_bytes(t->k, t->c_in, t->c_out);
    ck_assert_uint_ge(wbytes, w_count * 2);
    void *w_dev = dev_alloc(wbytes);
    char err[256] = "";
    ck_assert_msg(nn_cuda_conv_igemm_prepare_f16(w, t->k, t->c_in, t->c_out, w_dev, err,
                                                 (int)sizeof err), "prepare: %s", err);

    dev_epilogue d;
    nn_cuda_epilogue ep = dev_epilogue_init(&d, &h, n, size, t->c_out);
    uint16_t *res16 = NULL;
    if (h.residual) {
        res16 = malloc(out_count * sizeof *res16);
        ck_assert_ptr_nonnull(res16);
        for (size_t i = 0; i < out_count; i++)
            res16[i] = half_from_float(h.residual[i]);
    }
    guarded out, out2, res;
    guarded_init(&out, out_count, 2, (size_t)t->out_offset, (t->fields & EP_ALIAS) ? res16 : NULL);
    void *res_dev = NULL;
    if (t->fields & EP_ALIAS) {
        ep.residual = guarded_data(&out);
    } else if (t->fields & EP_RESIDUAL) {
        guarded_init(&res, out_count, 2, 0, res16);
        res_dev = res.dev;
        ep.residual = guarded_data(&res);
    }
    if (t->fields & EP_OUT2) {
        guarded_init(&out2, out_count, 2, (size_t)t->out_offset, NULL);
        ep.out2 = guarded_data(&out2);
    }

    cudaError_t e = nn_cuda_conv_igemm_f16_config((uint16_t *)in_dev + t->in_offset, w_dev,
                                                  guarded_data(&out), n, size, size, t->c_in,
                                                  t->c_out, t->k, &ep, t->config, 0);
    ck_assert_msg(e == cudaSuccess, "%s: launch: %s", what, cudaGetErrorString(e));
    e = cudaDeviceSynchronize();
    ck_assert_msg(e == cudaSuccess, "%s: kernel: %s", what, cudaGetErrorString(e));

    double *conv = ref_conv(in, w, n, size, t->c_in, t->c_out, t->k);
    double *ref = malloc(out_count * sizeof *ref), *ref2 = malloc(out_count * sizeof *ref2);
    ck_assert(ref && ref2);
    ref_epilogue(&h, conv, n, points, t->c_out, ref, ref2);
    float *got = guarded_fetch(&out, what);
    compare(what, got, ref, n, size, t->c_out, TEST_FP16_RTOL, 2e-3);
    free(got);
    if (t->fields & EP_OUT2) {
        float *got2 = guarded_fetch(&out2, what);
        compare(what, got2, ref2, n, size, t->c_out, TEST_FP16_RTOL, 2e-3);
        free(got2);
        cudaFree(out2.dev);
    }
    if (res_dev) {   /* a separate residual is read only */
        float *back = guarded_fetch(&res, what);
        for (size_t i = 0; i < out_count; i++)
            ck_assert_float_eq(back[i], h.residual[i]);
        free(back);
        cudaFree(res_dev);
    }
    cudaFree(out.dev);
    cudaFree(in_dev);
    cudaFree(w_dev);
    dev_epilogue_free(&d);
    free(conv);
    free(ref);
    free(ref2);
    free(res16);
    free(in16);
    free(in);
    free(w);
    host_epilogue_free(&h);
}
END_TEST

/* ---- the standalone epilogue ---- */

typedef struct epi_case {
    bool f32;
    int c, size, batch;
    unsigned fields;
    int act, act2;
    int offset;     /* elements added to out (and out2): 1 forces scalar accesses */
} epi_case;

static const epi_case epi_cases[] = {
    {false, 1, 9, 3, EP_ALL, 2, 1, 0},
    {false, 6, 13, 3, EP_ALL_ALIAS, 1, 2, 0},    /* half2 */
    {false, 7, 19, 17, EP_ALL, 2, 2, 0},
    {false, 96, 19, 17, EP_ALL, 2, 1, 0},        /* 8 halves */
    {false, 96, 13, 3, EP_ALL_ALIAS, 1, 2, 0},
    {false, 96, 13, 3, EP_SCALE | EP_BIAS, 2, 0, 0},
    {false, 96, 9, 1, 0, 0, 0, 0},
    {false, 96, 9, 3, EP_ALL, 2, 1, 1},
    {true, 1, 9, 3, EP_ALL, 2, 1, 0},
    {true, 7, 19, 17, EP_ALL_ALIAS, 1, 2, 0},
    {true, 96, 19, 17, EP_ALL, 2, 1, 0},         /* float4 */
    {true, 96, 13, 3, EP_MASK | EP_BIAS_NC, 1, 0, 0},
    {true, 96, 9, 3, EP_ALL, 2, 2, 1},
    /* more groups than the launcher's threads: each thread goes on through several points
     * (8 halves, half2, float4), the last step ragged; the trunk's in-place case (only out2) */
    {false, 384, 19, 64, EP_ALL, 2, 1, 0},
    {false, 384, 19, 64, EP_OUT2 | EP_SCALE2 | EP_BIAS2, 0, 2, 0},
    {false, 6, 19, 512, EP_ALL_ALIAS, 1, 2, 0},
    {true, 96, 19, 64, EP_ALL, 2, 1, 0},
    /* SiLU (KataGo 1.17's nets), as the main and the second activation */
    {false, 96, 19, 17, EP_ALL, 3, 3, 0},
    {true, 7, 13, 3, EP_ALL_ALIAS, 3, 1, 0},
};
#define NUM_EPI_CASES ((int)(sizeof epi_cases / sizeof epi_cases[0]))

START_TEST(epilogue_matches_reference)
{
    if (!test_cuda_device_present("conv_igemm tests"))
        return;
    const epi_case *t = &epi_cases[_i];
    char what[128];
    snprintf(what, sizeof what, "epilogue case %d: %s, c %d, %dx%d, batch %d, fields 0x%x", _i,
             t->f32 ? "f32" : "f16", t->c, t->size, t->size, t->batch, t->fields);
    rng_state = 0xe9100000u + (uint64_t)_i;
    const int n = t->batch, size = t->size, points = size * size;
    const size_t count = (size_t)n * points * t->c, elem = t->f32 ? 4 : 2;

    float *x = random_floats(count, -3.0f, 3.0f, !t->f32);
    host_epilogue h;
    host_epilogue_init(&h, t->fields, t->act, t->act2, n, size, t->c, !t->f32);
    /* the device buffers in their own type: out starts as x (the residual, when aliased, is x) */
    void *x_typed = malloc(count * elem), *res_typed = malloc(count * elem);
    ck_assert(x_typed && res_typed);
    if (t->fields & EP_ALIAS)
        memcpy(h.residual, x, count * sizeof *x);
    for (size_t i = 0; i < count; i++) {
        if (t->f32) {
            ((float *)x_typed)[i] = x[i];
            if (h.residual)
                ((float *)res_typed)[i] = h.residual[i];
        } else {
            ((uint16_t *)x_typed)[i] = half_from_float(x[i]);
            if (h.residual)
                ((uint16_t *)res_typed)[i] = half_from_float(h.residual[i]);
        }
    }
    dev_epilogue d;
    nn_cuda_epilogue ep = dev_epilogue_init(&d, &h, n, size, t->c);
    guarded out, out2, res;
    guarded_init(&out, count, elem, (size_t)t->offset, x_typed);
    void *res_dev = NULL;
    if (t->fields & EP_ALIAS) {
        ep.residual = guarded_data(&out);
    } else if (t->fields & EP_RESIDUAL) {
        guarded_init(&res, count, elem, 0, res_typed);
        res_dev = res.dev;
        ep.residual = guarded_data(&res);
    }
    if (t->fields & EP_OUT2) {
        guarded_init(&out2, count, elem, (size_t)t->offset, NULL);
        ep.out2 = guarded_data(&out2);
    }

    cudaError_t e = t->f32 ? nn_cuda_epilogue_f32(guarded_data(&out), n, size, size, t->c, &ep, 0)
                           : nn_cuda_epilogue_f16(guarded_data(&out), n, size, size, t->c, &ep, 0);
    ck_assert_msg(e == cudaSuccess, "%s: launch: %s", what, cudaGetErrorString(e));
    e = cudaDeviceSynchronize();
    ck_assert_msg(e == cudaSuccess, "%s: kernel: %s", what, cudaGetErrorString(e));

    double *acc = malloc(count * sizeof *acc), *ref = malloc(count * sizeof *ref),
           *ref2 = malloc(count * sizeof *ref2);
    ck_assert(acc && ref && ref2);
    for (size_t i = 0; i < count; i++)
        acc[i] = x[i];
    ref_epilogue(&h, acc, n, points, t->c, ref, ref2);
    double rtol = t->f32 ? TEST_FP32_TOL : TEST_FP16_RTOL, atol = t->f32 ? 1e-6 : 2e-3;
    float *got = guarded_fetch(&out, what);
    compare(what, got, ref, n, size, t->c, rtol, atol);
    free(got);
    if (t->fields & EP_OUT2) {
        float *got2 = guarded_fetch(&out2, what);
        compare(what, got2, ref2, n, size, t->c, rtol, atol);
        free(got2);
        cudaFree(out2.dev);
    }
    if (res_dev)
        cudaFree(res_dev);
    cudaFree(out.dev);
    dev_epilogue_free(&d);
    free(acc);
    free(ref);
    free(ref2);
    free(x_typed);
    free(res_typed);
    free(x);
    host_epilogue_free(&h);
}
END_TEST

/* ---- shapes and errors (no device needed: these paths make no CUDA call) ---- */

START_TEST(shapes_and_weight_sizes)
{
    ck_assert(nn_cuda_conv_igemm_supported(3, 384, 384, 19, 19));
    ck_assert(nn_cuda_conv_igemm_supported(1, 1, 1, 1, 1));
    ck_assert(nn_cuda_conv_igemm_supported(3, 7, 7, 9, 9));
    ck_assert(nn_cuda_conv_igemm_supported(3, 7, 7, 13, 2));
    ck_assert(!nn_cuda_conv_igemm_supported(3, 96, 96, 19, 20));
    ck_assert(!nn_cuda_conv_igemm_supported(5, 96, 96, 19, 19));
    ck_assert(!nn_cuda_conv_igemm_supported(3, 96, 96, 20, 20));
    ck_assert(!nn_cuda_conv_igemm_supported(3, 0, 96, 19, 19));
    ck_assert(!nn_cuda_conv_igemm_supported(1, 96, 0, 19, 19));
    ck_assert_uint_eq(nn_cuda_conv_igemm_weight_bytes(2, 96, 96), 0);
    /* at least the unpadded half weights, padding bounded by one K tile and 8 outputs */
    static const int shapes[][3] = {{3, 1, 1}, {3, 7, 7}, {1, 384, 96}, {3, 384, 384}, {1, 96, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        int k = shapes[i][0], ci = shapes[i][1], co = shapes[i][2];
        size_t b = nn_cuda_conv_igemm_weight_bytes(k, ci, co);
        ck_assert_uint_ge(b, (size_t)k * k * ci * co * 2);
        ck_assert_uint_le(b, (size_t)k * k * (ci + 32) * (co + 8) * 2);
    }
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    char err[256] = "";
    float w[4] = {0};
    ck_assert(!nn_cuda_conv_igemm_prepare_f16(w, 2, 1, 1, (void *)w, err, (int)sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "unsupported"));
    nn_cuda_epilogue ep;
    memset(&ep, 0, sizeof ep);
    ck_assert_int_eq(nn_cuda_conv_igemm_f16(w, w, w, 1, 19, 19, 96, 96, 5, &ep, 0),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(nn_cuda_conv_igemm_f16(w, w, w, 0, 19, 19, 96, 96, 3, &ep, 0),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(nn_cuda_conv_igemm_f16_config(w, w, w, 1, 19, 19, 96, 96, 3, &ep,
                                                   nn_cuda_conv_igemm_config_count(), 0),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(nn_cuda_epilogue_f16(w, 0, 19, 19, 96, &ep, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(nn_cuda_epilogue_f32(w, 1, 19, 19, 0, &ep, 0), cudaErrorInvalidValue);
}
END_TEST

START_TEST(prepare_refuses_weights_beyond_half)
{
    if (!test_cuda_device_present("conv_igemm tests"))
        return;
    float w[9] = {0, 0, 0, 0, 1e5f, 0, 0, 0, 0};
    void *dev = dev_alloc(nn_cuda_conv_igemm_weight_bytes(3, 1, 1));
    char err[256] = "";
    ck_assert(!nn_cuda_conv_igemm_prepare_f16(w, 3, 1, 1, dev, err, (int)sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "half precision"));
    w[4] = 65504.0f;
    ck_assert_msg(nn_cuda_conv_igemm_prepare_f16(w, 3, 1, 1, dev, err, (int)sizeof err), "%s", err);
    cudaFree(dev);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conv_igemm");
    TCase *host = tcase_create("host");
    tcase_add_test(host, half_conversion_round_trips);
    tcase_add_test(host, shapes_and_weight_sizes);
    tcase_add_test(host, bad_arguments_are_refused);
    suite_add_tcase(s, host);
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 300);   /* device start-up per forked test, and the CPU reference */
    tcase_add_test(dev, prepare_refuses_weights_beyond_half);
    tcase_add_loop_test(dev, conv_matches_reference, 0, NUM_CONV_CASES);
    tcase_add_loop_test(dev, epilogue_matches_reference, 0, NUM_EPI_CASES);
    suite_add_tcase(s, dev);
    return test_run_suite(s);
}
