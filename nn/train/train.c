/* nn/train/train.c -- forward, backward and Adam for the discriminator's CNN on the CPU
 * (layout and threading: train.h). */
#include "nn/train/train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nn/train/gemm.h"
#include "nn/train/winograd.h"
#include "weights/disc.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_train.h"
#endif

void openblas_set_num_threads(int num_threads);

struct nn_train_ws {
    int max_batch, n;
    bool backward;
    float *x;                       /* the input, point-major: [planes][area][n] */
    float *act[NN_DISC_MAX_LAYERS]; /* each layer's output (after its activation) */
    float *flat;                    /* the last convolution's output as [n][c][area] */
    float *col;                     /* im2col of one layer */
    float *d0, *d1;                 /* gradients flowing back (ping-pong) */
    float *dflat;
    nn_train_gemm_ws *gemm;         /* this thread's packing buffers */
    /* Winograd layers (3x3): each one's transformed input, kept for its weights' gradient, and
     * scratch for products (wm), transformed gradients (wz), weights (wu), their gradient (wdu)
     * and the padded planes of chunks that are not a divisor of 16 images (wpad) */
    bool wino[NN_DISC_MAX_LAYERS];
    float *wv[NN_DISC_MAX_LAYERS];
    const float *uf[NN_DISC_MAX_LAYERS], *ub[NN_DISC_MAX_LAYERS]; /* a trainer's transformed
                                     weights (forward, rotated), else NULL: transformed here */
    float *frozen[NN_DISC_MAX_LAYERS]; /* nn_train_ws_freeze's transformed weights */
    float *wm, *wz, *wu, *wdu, *wpad;
};

static bool force_im2col;

void nn_train_force_im2col(bool force) { force_im2col = force; }

/* Images a Winograd pass takes at a time: 16 make each block of 16 tiles one point of 16 images
 * (winograd.c reads them as vectors), and their transformed arrays stay within a core's L2
 * cache for the discriminator's 9x9 (25 x 128 channels x 144 tiles). The forward and backward
 * passes cut a batch the same way. */
#define WINO_CHUNK 16

static int area_of(const nn_disc_desc *d) { return d->size * d->size; }

/* The first dense layer's index (every layer before it is a convolution). */
static int first_dense(const nn_disc_desc *d)
{
    int l = 0;
    while (l < d->num_layers && d->layer[l].kind == NN_DISC_CONV)
        l++;
    return l;
}

void nn_train_ws_free(nn_train_ws *ws)
{
    if (!ws)
        return;
    free(ws->x);
    for (int l = 0; l < NN_DISC_MAX_LAYERS; l++)
        free(ws->act[l]);
    free(ws->flat);
    free(ws->col);
    free(ws->d0);
    free(ws->d1);
    free(ws->dflat);
    for (int l = 0; l < NN_DISC_MAX_LAYERS; l++) {
        free(ws->wv[l]);
        free(ws->frozen[l]);
    }
    free(ws->wm);
    free(ws->wz);
    free(ws->wu);
    free(ws->wdu);
    free(ws->wpad);
    nn_train_gemm_ws_free(ws->gemm);
    free(ws);
}

nn_train_ws *nn_train_ws_new(const nn_disc_desc *d, int max_batch, bool backward)
{
    char err[256];
    if (max_batch < 1 || !nn_disc_desc_check(d, err, sizeof err))
        return NULL;
    nn_train_ws *ws = calloc(1, sizeof *ws);
    if (!ws)
        return NULL;
    size_t n = (size_t)max_batch, area = (size_t)area_of(d);
    ws->max_batch = max_batch;
    ws->backward = backward;
    size_t col = 1, widest = (size_t)d->planes * area;
    size_t tiles = n * (size_t)nn_wino_tiles(d->size), wrows = 0, wzrows = 0, wkc = 0;
    size_t chunk_tiles = (size_t)(WINO_CHUNK < max_batch ? WINO_CHUNK : max_batch) *
                         nn_wino_tiles(d->size);
    bool ok = (ws->x = malloc(n * d->planes * area * sizeof(float))) != NULL &&
              (ws->gemm = nn_train_gemm_ws_new()) != NULL;
    for (int l = 0; l < d->num_layers && ok; l++) {
        const nn_disc_layer *L = &d->layer[l];
        size_t outs = (size_t)nn_disc_layer_outputs(d, l);
        if (outs > widest)
            widest = outs;
        if (L->kind == NN_DISC_CONV) {
            size_t k = (size_t)L->conv.ky, ci = (size_t)L->conv.c_in, co = (size_t)L->conv.c_out;
            if (L->conv.ky == 3 && L->conv.kx == 3 && !force_im2col) {
                ws->wino[l] = true;
                wrows = ci > wrows ? ci : wrows;
                wrows = co > wrows ? co : wrows;
                wzrows = co > wzrows ? co : wzrows;
                wkc = ci * co > wkc ? ci * co : wkc;
                ok = (ws->wv[l] = malloc(NN_WINO_POINTS * ci * tiles * sizeof(float))) != NULL;
            } else if (ci * k * k * area > col) {
                col = ci * k * k * area;
            }
        }
        ok = ok && (ws->act[l] = malloc(n * outs * sizeof(float))) != NULL;
    }
    if (ok && wkc > 0)
        ok = (ws->wm = malloc(NN_WINO_POINTS * wrows * chunk_tiles * sizeof(float))) &&
             (ws->wu = malloc(NN_WINO_POINTS * wkc * sizeof(float))) &&
             (ws->wpad = malloc((size_t)nn_wino_scratch(d->size, (int)(chunk_tiles /
                                nn_wino_tiles(d->size))) * sizeof(float))) &&
             (!backward ||
              ((ws->wz = malloc(NN_WINO_POINTS * wzrows * chunk_tiles * sizeof(float))) &&
               (ws->wdu = malloc(NN_WINO_POINTS * wkc * sizeof(float)))));
    int fd = first_dense(d);
    size_t flat = fd > 0 ? (size_t)nn_disc_layer_outputs(d, fd - 1) : 1;
    ok = ok && (ws->flat = malloc(n * flat * sizeof(float))) &&
         (ws->col = malloc(n * col * sizeof(float)));
    if (ok && backward)
        ok = (ws->d0 = malloc(n * (widest > col ? widest : col) * sizeof(float))) &&
             (ws->d1 = malloc(n * (widest > col ? widest : col) * sizeof(float))) &&
             (ws->dflat = malloc(n * flat * sizeof(float)));
    if (!ok) {
        nn_train_ws_free(ws);
        return NULL;
    }
    return ws;
}

/* col[(c k k + ky k + kx)][p n + i] of in[c][p][i] (p = y size + x, the n images side by side):
 * for output point p, the input point under kernel tap (ky, kx), zero off the board. */
static void im2col(const float *in, int c_in, int n, int size, int k, float *col)
{
    int area = size * size, pad = k / 2;
    size_t row = (size_t)n * area, pt = (size_t)n * sizeof *col;
    for (int c = 0; c < c_in; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                float *dst = col + ((size_t)(c * k + ky) * k + kx) * row;
                const float *src = in + (size_t)c * row;
                for (int y = 0; y < size; y++)
                    for (int x = 0; x < size; x++) {
                        int sy = y + ky - pad, sx = x + kx - pad;
                        float *o = dst + ((size_t)y * size + x) * n;
                        if (sy < 0 || sy >= size || sx < 0 || sx >= size)
                            memset(o, 0, pt);
                        else
                            memcpy(o, src + ((size_t)sy * size + sx) * n, pt);
                    }
            }
}

/* The adjoint of im2col: out[c][p][i] += the col entries that copied it. */
static void col2im(const float *col, int c_in, int n, int size, int k, float *out)
{
    int area = size * size, pad = k / 2;
    size_t row = (size_t)n * area;
    for (int c = 0; c < c_in; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *src = col + ((size_t)(c * k + ky) * k + kx) * row;
                float *dst = out + (size_t)c * row;
                for (int y = 0; y < size; y++)
                    for (int x = 0; x < size; x++) {
                        int sy = y + ky - pad, sx = x + kx - pad;
                        if (sy < 0 || sy >= size || sx < 0 || sx >= size)
                            continue;
                        const float *s = src + ((size_t)y * size + x) * n;
                        float *d = dst + ((size_t)sy * size + sx) * n;
                        for (int i = 0; i < n; i++)
                            d[i] += s[i];
                    }
            }
}

/* [c][p][n] <-> [n][c][p] */
static void to_sample_major(const float *in, int c, int n, int area, float *out)
{
    for (int ch = 0; ch < c; ch++)
        for (int p = 0; p < area; p++)
            for (int i = 0; i < n; i++)
                out[((size_t)i * c + ch) * area + p] = in[((size_t)ch * area + p) * n + i];
}

static void to_point_major(const float *in, int c, int n, int area, float *out)
{
    for (int i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            for (int p = 0; p < area; p++)
                out[((size_t)ch * area + p) * n + i] = in[((size_t)i * c + ch) * area + p];
}

static NN_TRAIN_CLONES void relu(float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

bool nn_train_ws_freeze(nn_train_ws *ws, const nn_disc_desc *d)
{
    for (int l = 0; l < d->num_layers; l++) {
        const nn_conv_desc *c = &d->layer[l].conv;
        if (!ws->wino[l] || ws->uf[l])
            continue;
        ws->frozen[l] = malloc(NN_WINO_POINTS * (size_t)c->c_out * c->c_in * sizeof(float));
        if (!ws->frozen[l])
            return false;
        nn_wino_weights(c->w, c->c_out, c->c_in, false, ws->frozen[l]);
        ws->uf[l] = ws->frozen[l];
    }
    return true;
}

/* Layer l (a 3x3 convolution) of n images by Winograd, bias and activation included; the
 * transformed input of the images from i0 is kept at ws->wv[l] + its offset. */
static void wino_forward(const nn_disc_desc *d, nn_train_ws *ws, int l, int n, const float *in,
                         float *out)
{
    const nn_conv_desc *c = &d->layer[l].conv;
    int tpi = nn_wino_tiles(d->size), chunk = WINO_CHUNK;
    size_t kc = (size_t)c->c_out * c->c_in;
    const float *U = ws->uf[l];
    if (!U) {
        nn_wino_weights(c->w, c->c_out, c->c_in, false, ws->wu);
        U = ws->wu;
    }
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int cnt = n - i0 < chunk ? n - i0 : chunk, T = cnt * tpi;
        float *V = ws->wv[l] + (size_t)NN_WINO_POINTS * c->c_in * i0 * tpi;
        nn_wino_input(in, c->c_in, n, i0, cnt, d->size, ws->wpad, V);
        for (int xi = 0; xi < NN_WINO_POINTS; xi++)
            nn_train_sgemm(ws->gemm, false, false, c->c_out, T, c->c_in, U + xi * kc, c->c_in,
                           V + (size_t)xi * c->c_in * T, T, 0.0f,
                           ws->wm + (size_t)xi * c->c_out * T, T);
        nn_wino_output(ws->wm, c->c_out, n, i0, cnt, d->size, c->bias,
                       d->layer[l].act == NN_ACT_RELU, ws->wpad, out);
    }
}

/* The backward pass of wino_forward's layer l given dz (the gradient of its output, the
 * activation's mask applied): the weights' gradient into gw, the input's into dprev (l > 0). */
static void wino_backward(const nn_disc_desc *d, nn_train_ws *ws, int l, int n, const float *dz,
                          float *gw, float *dprev)
{
    const nn_conv_desc *c = &d->layer[l].conv;
    int tpi = nn_wino_tiles(d->size), chunk = WINO_CHUNK, k = c->c_out, ci = c->c_in;
    size_t kc = (size_t)k * ci;
    const float *U = ws->ub[l];
    if (l > 0 && !U) {
        nn_wino_weights(c->w, k, ci, true, ws->wu);
        U = ws->wu;
    }
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int cnt = n - i0 < chunk ? n - i0 : chunk, T = cnt * tpi;
        const float *V = ws->wv[l] + (size_t)NN_WINO_POINTS * ci * i0 * tpi;
        nn_wino_grad_output(dz, k, n, i0, cnt, d->size, ws->wpad, ws->wz);
        for (int xi = 0; xi < NN_WINO_POINTS; xi++)
            nn_train_sgemm(ws->gemm, false, true, k, ci, T, ws->wz + (size_t)xi * k * T, T,
                           V + (size_t)xi * ci * T, T, i0 > 0 ? 1.0f : 0.0f,
                           ws->wdu + xi * kc, ci);
        if (l == 0)
            continue;
        nn_wino_input(dz, k, n, i0, cnt, d->size, ws->wpad, ws->wz);
        for (int xi = 0; xi < NN_WINO_POINTS; xi++)
            nn_train_sgemm(ws->gemm, false, false, ci, T, k, U + xi * kc, k,
                           ws->wz + (size_t)xi * k * T, T, 0.0f, ws->wm + (size_t)xi * ci * T,
                           T);
        nn_wino_output(ws->wm, ci, n, i0, cnt, d->size, NULL, false, ws->wpad, dprev);
    }
    nn_wino_weight_grad(ws->wdu, k, ci, gw);
}

void nn_train_ws_forward(const nn_disc_desc *d, nn_train_ws *ws, int n, const float *x,
                         float *logits)
{
    int area = area_of(d), fd = first_dense(d);
    int na = n * area;
    ws->n = n;
    to_point_major(x, d->planes, n, area, ws->x);
    const float *in = ws->x;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        float *out = ws->act[l];
        if (L->kind == NN_DISC_CONV) {
            const nn_conv_desc *c = &L->conv;
            int K = c->c_in * c->ky * c->kx;
            if (ws->wino[l]) {
                wino_forward(d, ws, l, n, in, out);
                in = out;
                continue;
            }
            if (c->ky == 1) {
                nn_train_sgemm(ws->gemm, false, false, c->c_out, na, K, c->w, K, in, na, 0.0f,
                               out, na);
            } else {
                im2col(in, c->c_in, n, d->size, c->ky, ws->col);
                nn_train_sgemm(ws->gemm, false, false, c->c_out, na, K, c->w, K, ws->col, na,
                               0.0f, out, na);
            }
            for (int o = 0; o < c->c_out; o++) {
                float b = c->bias[o], *row = out + (size_t)o * na;
                for (int j = 0; j < na; j++)
                    row[j] += b;
            }
        } else {
            const nn_matmul_desc *m = &L->dense;
            if (l == fd && fd > 0) {
                to_sample_major(in, d->layer[l - 1].conv.c_out, n, area, ws->flat);
                in = ws->flat;
            }
            nn_train_sgemm(ws->gemm, false, false, n, m->c_out, m->c_in, in,
                        m->c_in, m->w, m->c_out, 0.0f, out, m->c_out);
            for (int i = 0; i < n; i++)
                for (int o = 0; o < m->c_out; o++)
                    out[(size_t)i * m->c_out + o] += m->bias[o];
        }
        if (L->act == NN_ACT_RELU)
            relu(out, (size_t)n * nn_disc_layer_outputs(d, l));
        in = out;
    }
    memcpy(logits, ws->act[d->num_layers - 1], (size_t)n * sizeof *logits);
}

/* dz = 0 where the ReLU's output is. */
static NN_TRAIN_CLONES void relu_backward(const float *restrict out, size_t n,
                                          float *restrict dz)
{
    for (size_t i = 0; i < n; i++)
        dz[i] = out[i] > 0.0f ? dz[i] : 0.0f;
}

/* The sum of n floats: 16 running float sums added in double. */
static NN_TRAIN_CLONES double sum_of(const float *a, size_t n)
{
    float part[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++)
            part[l] += a[i + l];
    double s = 0;
    for (int l = 0; l < 16; l++)
        s += part[l];
    for (; i < n; i++)
        s += a[i];
    return s;
}

void nn_train_ws_backward(const nn_disc_desc *d, nn_train_ws *ws, const float *dlogits,
                          float *grad)
{
    int n = ws->n, area = area_of(d), fd = first_dense(d), na = n * area;
    /* each layer's gradient offsets in grad: weights then bias */
    size_t off[NN_DISC_MAX_LAYERS], pos = 0;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        off[l] = pos;
        pos += L->kind == NN_DISC_CONV
                   ? (size_t)L->conv.c_out * (L->conv.c_in * L->conv.ky * L->conv.kx + 1)
                   : (size_t)L->dense.c_out * (L->dense.c_in + 1);
    }
    float *dz = ws->d0, *dprev = ws->d1;
    memcpy(dz, dlogits, (size_t)n * sizeof *dz);
    for (int l = d->num_layers - 1; l >= 0; l--) {
        const nn_disc_layer *L = &d->layer[l];
        const float *out = ws->act[l];
        size_t outs = (size_t)n * nn_disc_layer_outputs(d, l);
        if (L->act == NN_ACT_RELU)
            relu_backward(out, outs, dz);
        const float *in = l == 0 ? ws->x : ws->act[l - 1];
        if (L->kind == NN_DISC_DENSE) {
            const nn_matmul_desc *m = &L->dense;
            if (l == fd && fd > 0)
                in = ws->flat;
            float *gw = grad + off[l], *gb = gw + (size_t)m->c_in * m->c_out;
            nn_train_sgemm(ws->gemm, true, false, m->c_in, m->c_out, n, in,
                        m->c_in, dz, m->c_out, 0.0f, gw, m->c_out);
            memset(gb, 0, (size_t)m->c_out * sizeof *gb);
            for (int i = 0; i < n; i++)
                for (int o = 0; o < m->c_out; o++)
                    gb[o] += dz[(size_t)i * m->c_out + o];
            if (l == 0)
                break;
            float *dst = l == fd ? ws->dflat : dprev;
            nn_train_sgemm(ws->gemm, false, true, n, m->c_in, m->c_out, dz,
                        m->c_out, m->w, m->c_out, 0.0f, dst, m->c_in);
            if (l == fd)
                to_point_major(ws->dflat, d->layer[l - 1].conv.c_out, n, area, dprev);
        } else {
            const nn_conv_desc *c = &L->conv;
            int K = c->c_in * c->ky * c->kx;
            float *gw = grad + off[l], *gb = gw + (size_t)c->c_out * K;
            for (int o = 0; o < c->c_out; o++) {
                gb[o] = (float)sum_of(dz + (size_t)o * na, (size_t)na);
            }
            if (ws->wino[l]) {
                wino_backward(d, ws, l, n, dz, gw, dprev);
            } else if (c->ky == 1) {
                nn_train_sgemm(ws->gemm, false, true, c->c_out, K, na, dz, na, in, na, 0.0f, gw,
                               K);
                if (l > 0)
                    nn_train_sgemm(ws->gemm, true, false, K, na, c->c_out, c->w, K, dz, na, 0.0f,
                                   dprev, na);
            } else {
                im2col(in, c->c_in, n, d->size, c->ky, ws->col);
                nn_train_sgemm(ws->gemm, false, true, c->c_out, K, na, dz, na, ws->col, na, 0.0f,
                               gw, K);
                if (l > 0) {
                    nn_train_sgemm(ws->gemm, true, false, K, na, c->c_out, c->w, K, dz, na, 0.0f,
                                   ws->col, na);
                    memset(dprev, 0, (size_t)c->c_in * na * sizeof *dprev);
                    col2im(ws->col, c->c_in, n, d->size, c->ky, dprev);
                }
            }
            if (l == 0)
                break;
        }
        float *t = dz;
        dz = dprev;
        dprev = t;
    }
}

double nn_train_bce(int n, const float *logits, const float *labels, float *dlogits, int scale_n)
{
    double loss = 0;
    for (int i = 0; i < n; i++) {
        double z = logits[i], y = labels[i];
        loss += (z > 0 ? z : 0) - z * y + log1p(exp(-fabs(z)));
        if (dlogits) {
            double p = z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
            dlogits[i] = (float)((p - y) / scale_n);
        }
    }
    return n > 0 ? loss / n : 0.0;
}

/* ---- the trainer ---------------------------------------------------------------------------- */

/* An Adam step's share of the tensors (run_adam). */
#define ADAM_CHUNK 1024

typedef struct adam_job {
    nn_trainer *t;
    const nn_adam *o;
    int part;
    float chunk[ADAM_CHUNK]; /* the shares' gradients summed, a chunk at a time */
} adam_job;

struct nn_trainer {
    nn_disc_desc *d;
    int threads, max_batch;
    size_t P;
    nn_train_ws **ws;        /* [threads] */
    float **grads;           /* [threads][P]: each share's gradient */
    int used[64], nused;     /* the last batch's shares that computed one, in thread order */
    bool grad_summed;        /* grad holds their sum (made on request: Adam sums as it goes) */
    float *grad, *m, *v;     /* [P] */
    float *dlogits, *logits; /* [max_batch] */
    float *uf[NN_DISC_MAX_LAYERS], *ub[NN_DISC_MAX_LAYERS]; /* Winograd layers' weights,
                                  transformed once a pass for every share (winograd.h) */
    adam_job *adam_jobs;     /* [threads] */
    uint64_t step;
#ifdef SHIDO_HAVE_CUDA
    nn_cuda_trainer *cuda;   /* the GPU does the work; the host arrays are copies on request */
#endif
    char err[512];
};

void nn_trainer_free(nn_trainer *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->threads; i++) {
        if (t->ws)
            nn_train_ws_free(t->ws[i]);
        if (t->grads)
            free(t->grads[i]);
    }
    free(t->ws);
    free(t->grads);
    free(t->grad);
    free(t->m);
    free(t->v);
    free(t->dlogits);
    free(t->logits);
    free(t->adam_jobs);
    for (int l = 0; l < NN_DISC_MAX_LAYERS; l++) {
        free(t->uf[l]);
        free(t->ub[l]);
    }
#ifdef SHIDO_HAVE_CUDA
    nn_cuda_trainer_free(t->cuda);
#endif
    free(t);
}

nn_trainer *nn_trainer_new_on(nn_disc_desc *d, int max_batch, int threads, const char *backend,
                              char *err, int err_len)
{
    bool cuda = backend && !strcmp(backend, "cuda");
    if (backend && !cuda && strcmp(backend, "cpu")) {
        snprintf(err, (size_t)err_len, "trainer: unknown backend \"%s\" (cpu or cuda)", backend);
        return NULL;
    }
#ifndef SHIDO_HAVE_CUDA
    if (cuda) {
        snprintf(err, (size_t)err_len, "trainer: this build has no CUDA (configure with "
                 "-DSHIDO_CUDA=ON)");
        return NULL;
    }
#endif
    nn_trainer *t = nn_trainer_new(d, max_batch, cuda ? 1 : threads);
    if (!t) {
        snprintf(err, (size_t)err_len, "trainer: out of memory or a net that does not check");
        return NULL;
    }
#ifdef SHIDO_HAVE_CUDA
    if (cuda && !(t->cuda = nn_cuda_trainer_new(d, max_batch, err, err_len))) {
        nn_trainer_free(t);
        return NULL;
    }
#endif
    return t;
}

nn_trainer *nn_trainer_new(nn_disc_desc *d, int max_batch, int threads)
{
    if (threads < 1 || threads > 64 || max_batch < 1)
        return NULL;
    nn_trainer *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->d = d;
    t->threads = threads;
    t->max_batch = max_batch;
    t->P = weights_disc_num_params(d);
    t->grad_summed = true; /* no batch yet: grad is zero */
    int share = (max_batch + threads - 1) / threads;
    bool ok = (t->ws = calloc((size_t)threads, sizeof *t->ws)) &&
              (t->grads = calloc((size_t)threads, sizeof *t->grads)) &&
              (t->grad = calloc(t->P, sizeof *t->grad)) && (t->m = calloc(t->P, sizeof *t->m)) &&
              (t->v = calloc(t->P, sizeof *t->v)) &&
              (t->dlogits = calloc((size_t)max_batch, sizeof *t->dlogits)) &&
              (t->logits = calloc((size_t)max_batch, sizeof *t->logits)) &&
              (t->adam_jobs = calloc((size_t)threads, sizeof *t->adam_jobs));
    for (int i = 0; ok && i < threads; i++)
        ok = (t->ws[i] = nn_train_ws_new(d, share, true)) &&
             (t->grads[i] = calloc(t->P, sizeof *t->grads[i]));
    for (int l = 0; ok && l < d->num_layers; l++) {
        if (!t->ws[0]->wino[l])
            continue;
        size_t len = NN_WINO_POINTS * (size_t)d->layer[l].conv.c_in * d->layer[l].conv.c_out;
        ok = (t->uf[l] = malloc(len * sizeof(float))) && (t->ub[l] = malloc(len * sizeof(float)));
        for (int i = 0; ok && i < threads; i++) {
            t->ws[i]->uf[l] = t->uf[l];
            t->ws[i]->ub[l] = t->ub[l];
        }
    }
    if (!ok) {
        nn_trainer_free(t);
        return NULL;
    }
    /* the shares are the parallelism; OpenBLAS's own threads would only fight them */
    openblas_set_num_threads(1);
    return t;
}

typedef struct share_job {
    nn_trainer *t;
    int index, from, to, n;
    const float *x, *labels;
    float *logits;
    bool backward;
    double loss;
} share_job;

static void *run_share(void *arg)
{
    share_job *j = arg;
    nn_trainer *t = j->t;
    int cnt = j->to - j->from;
    if (cnt <= 0)
        return NULL;
    size_t in = (size_t)t->d->planes * t->d->size * t->d->size;
    nn_train_ws_forward(t->d, t->ws[j->index], cnt, j->x + (size_t)j->from * in,
                        j->logits + j->from);
    if (!j->backward)
        return NULL;
    float *g = t->grads[j->index];
    j->loss = nn_train_bce(cnt, j->logits + j->from, j->labels + j->from, t->dlogits + j->from,
                           j->n) * cnt;
    nn_train_ws_backward(t->d, t->ws[j->index], t->dlogits + j->from, g);
    return NULL;
}

/* fn(job i) for i < threads, the calling thread taking job 0 (and any a thread could not be
 * started for). */
static void run_threads(int threads, void *(*fn)(void *), void *jobs, size_t job_size)
{
    pthread_t th[64];
    bool started[64] = {false};
    for (int i = 1; i < threads; i++)
        started[i] = pthread_create(&th[i], NULL, fn, (char *)jobs + i * job_size) == 0;
    fn(jobs);
    for (int i = 1; i < threads; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn((char *)jobs + i * job_size);
    }
}

typedef struct weights_job {
    nn_trainer *t;
    int part;
    bool backward;
} weights_job;

/* Part `part` of every Winograd layer's transformed weights (rotated too for a backward pass). */
static void *run_weights(void *arg)
{
    weights_job *j = arg;
    const nn_disc_desc *d = j->t->d;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_conv_desc *c = &d->layer[l].conv;
        if (!j->t->uf[l])
            continue;
        nn_wino_weights_part(c->w, c->c_out, c->c_in, false, j->part, j->t->threads, j->t->uf[l]);
        if (j->backward && l > 0)
            nn_wino_weights_part(c->w, c->c_out, c->c_in, true, j->part, j->t->threads,
                                 j->t->ub[l]);
    }
    return NULL;
}

/* Runs the shares of a batch, the weights' transforms first unless those of the same weights
 * are still in place (!transform). */
static double run_shares(nn_trainer *t, int n, const float *x, const float *labels, float *logits,
                         bool backward, bool transform)
{
    weights_job wj[64];
    share_job job[64];
    for (int i = 0; i < t->threads; i++) {
        wj[i] = (weights_job){t, i, backward};
        job[i] = (share_job){t, i, (int)((long)n * i / t->threads),
                             (int)((long)n * (i + 1) / t->threads), n, x, labels, logits,
                             backward, 0.0};
    }
    if (transform)
        run_threads(t->threads, run_weights, wj, sizeof *wj);
    run_threads(t->threads, run_share, job, sizeof *job);
    double loss = 0;
    for (int i = 0; i < t->threads; i++)
        loss += job[i].loss;
    return loss / n;
}

double nn_trainer_gradient(nn_trainer *t, int n, const float *x, const float *labels,
                           float *logits)
{
    if (n < 1 || n > t->max_batch)
        return NAN;
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda) {
        double loss = nn_cuda_trainer_run(t->cuda, n, x, labels, logits);
        if (isnan(loss))
            snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
        return loss;
    }
#endif
    double loss = run_shares(t, n, x, labels, t->logits, true, true);
    if (logits)
        memcpy(logits, t->logits, (size_t)n * sizeof *logits);
    /* an empty share (n < threads) computed nothing; Adam and nn_trainer_grad add the others' in
     * thread order */
    t->nused = 0;
    for (int i = 0; i < t->threads; i++)
        if ((long)n * (i + 1) / t->threads > (long)n * i / t->threads)
            t->used[t->nused++] = i;
    t->grad_summed = false;
    return loss;
}

void nn_trainer_predict(nn_trainer *t, int n, const float *x, float *logits)
{
    for (int from = 0; from < n; from += t->max_batch) {
        int cnt = n - from < t->max_batch ? n - from : t->max_batch;
        size_t in = (size_t)t->d->planes * t->d->size * t->d->size;
#ifdef SHIDO_HAVE_CUDA
        if (t->cuda) {
            if (isnan(nn_cuda_trainer_run(t->cuda, cnt, x + (size_t)from * in, NULL,
                                          logits + from))) {
                snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
                for (int i = from; i < n; i++)
                    logits[i] = NAN;
                return;
            }
            continue;
        }
#endif
        run_shares(t, cnt, x + (size_t)from * in, NULL, logits + from, false, from == 0);
    }
}

/* grad[0 .. b - a) = the sum of the shares' gradients p = a .. b - 1, added in thread order
 * (two or more shares). */
static NN_TRAIN_CLONES void sum_grads(const nn_trainer *t, size_t a, size_t b,
                                      float *restrict grad)
{
    const float *restrict g0 = t->grads[t->used[0]] + a, *restrict g1 = t->grads[t->used[1]] + a;
    for (size_t p = 0; p < b - a; p++)
        grad[p] = g0[p] + g1[p];
    for (int k = 2; k < t->nused; k++) {
        const float *restrict g = t->grads[t->used[k]] + a;
        for (size_t p = 0; p < b - a; p++)
            grad[p] += g[p];
    }
}

/* Adam's update of n weights w from their gradients g and moments m, v. */
static NN_TRAIN_CLONES void adam_span(const nn_adam *o, float step_size, float c2s, size_t n,
                                      const float *restrict g, float *restrict m,
                                      float *restrict v, float *restrict w)
{
    float b1 = o->beta1, b2 = o->beta2, eps = o->eps;
    for (size_t i = 0; i < n; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        w[i] -= step_size * m[i] / (sqrtf(v[i]) / c2s + eps);
    }
}

/* Part `part` of every tensor (threads parts) through Adam's step t->step. */
static void *run_adam(void *arg)
{
    adam_job *j = arg;
    nn_trainer *t = j->t;
    const nn_adam *o = j->o;
    double c1 = 1.0 - pow(o->beta1, (double)t->step), c2 = 1.0 - pow(o->beta2, (double)t->step);
    float step_size = (float)(o->lr / c1), c2s = (float)sqrt(c2);
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], p = 0;
    int nt = weights_disc_tensors(t->d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int k = 0; k < nt; k++) {
        size_t a = len[k] * j->part / t->threads, b = len[k] * (j->part + 1) / t->threads;
        /* the gradient's sum a chunk at a time (in L1), unless nn_trainer_grad made it */
        for (size_t c = a; c < b; c += ADAM_CHUNK) {
            size_t e = b - c < ADAM_CHUNK ? b : c + ADAM_CHUNK;
            const float *g = t->grad + p + c;
            if (!t->grad_summed && t->nused == 1) {
                g = t->grads[t->used[0]] + p + c;
            } else if (!t->grad_summed) {
                sum_grads(t, p + c, p + e, j->chunk);
                g = j->chunk;
            }
            adam_span(o, step_size, c2s, e - c, g, t->m + p + c, t->v + p + c, ptr[k] + c);
        }
        p += len[k];
    }
    return NULL;
}

void nn_trainer_adam(nn_trainer *t, const nn_adam *o)
{
    t->step++;
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda) {
        if (!nn_cuda_trainer_adam(t->cuda, t->step, o->lr, o->beta1, o->beta2, o->eps))
            snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
        return;
    }
#endif
    adam_job *job = t->adam_jobs;
    for (int i = 0; i < t->threads; i++) {
        job[i].t = t;
        job[i].o = o;
        job[i].part = i;
    }
    run_threads(t->threads, run_adam, job, sizeof *job);
}

const float *nn_trainer_grad(nn_trainer *t)
{
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda) {
        if (!nn_cuda_trainer_pull(t->cuda, t->grad, NULL, NULL, NULL))
            snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
        return t->grad;
    }
#endif
    if (!t->grad_summed && t->nused == 1)
        memcpy(t->grad, t->grads[t->used[0]], t->P * sizeof *t->grad);
    else if (!t->grad_summed)
        sum_grads(t, 0, t->P, t->grad);
    t->grad_summed = true;
    return t->grad;
}

bool nn_trainer_sync(nn_trainer *t)
{
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda && !nn_cuda_trainer_pull(t->cuda, NULL, t->m, t->v, t->d)) {
        snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
        return false;
    }
#endif
    return true;
}

bool nn_trainer_push(nn_trainer *t)
{
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda && !nn_cuda_trainer_push(t->cuda, t->m, t->v, t->d)) {
        snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
        return false;
    }
#endif
    return true;
}

const char *nn_trainer_error(const nn_trainer *t) { return t->err; }
size_t nn_trainer_num_params(const nn_trainer *t) { return t->P; }
uint64_t nn_trainer_step(const nn_trainer *t) { return t->step; }
float *nn_trainer_moment(nn_trainer *t, int which) { return which ? t->v : t->m; }
void nn_trainer_set_step(nn_trainer *t, uint64_t step) { t->step = step; }
