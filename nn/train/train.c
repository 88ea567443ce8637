/* nn/train/train.c -- forward, backward and Adam for the discriminator's CNN on the CPU
 * (layout and threading: train.h). */
#include "nn/train/train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nn/train/gemm.h"
#include "weights/disc.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_train.h"
#endif

void openblas_set_num_threads(int num_threads);

struct nn_train_ws {
    int max_batch, n;
    bool backward;
    float *x;                       /* the input, channel-major: [planes][n][area] */
    float *act[NN_DISC_MAX_LAYERS]; /* each layer's output (after its activation) */
    float *flat;                    /* the last convolution's output as [n][c][area] */
    float *col;                     /* im2col of one layer */
    float *d0, *d1;                 /* gradients flowing back (ping-pong) */
    float *dflat;
    nn_train_gemm_ws *gemm;         /* this thread's packing buffers */
};

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
    bool ok = (ws->x = malloc(n * d->planes * area * sizeof(float))) != NULL &&
              (ws->gemm = nn_train_gemm_ws_new()) != NULL;
    for (int l = 0; l < d->num_layers && ok; l++) {
        const nn_disc_layer *L = &d->layer[l];
        size_t outs = (size_t)nn_disc_layer_outputs(d, l);
        if (outs > widest)
            widest = outs;
        if (L->kind == NN_DISC_CONV) {
            size_t k = (size_t)L->conv.ky;
            if ((size_t)L->conv.c_in * k * k * area > col)
                col = (size_t)L->conv.c_in * k * k * area;
        }
        ok = (ws->act[l] = malloc(n * outs * sizeof(float))) != NULL;
    }
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

/* The columns x of a row that read inside the window for kernel column kx: x0 <= x < x1. */
static void span(int size, int kx, int pad, int *x0, int *x1)
{
    int lo = pad - kx, hi = size + pad - kx;
    *x0 = lo > 0 ? lo : 0;
    *x1 = hi < size ? hi : size;
}

/* col[(c k k + ky k + kx)][j] for j = (i - i0, y, x) of in[c][i][y][x], i0 <= i < i0 + n of the
 * n_all images, zero off the window. */
static void im2col(const float *in, int c_in, int n_all, int i0, int n, int size, int k,
                   float *col)
{
    int area = size * size, pad = k / 2;
    size_t row = (size_t)n * area;
    for (int c = 0; c < c_in; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                float *dst = col + ((size_t)(c * k + ky) * k + kx) * row;
                int x0, x1;
                span(size, kx, pad, &x0, &x1);
                for (int i = 0; i < n; i++) {
                    const float *src = in + ((size_t)c * n_all + i0 + i) * area;
                    for (int y = 0; y < size; y++) {
                        int sy = y + ky - pad;
                        float *o = dst + (size_t)i * area + (size_t)y * size;
                        if (sy < 0 || sy >= size) {
                            memset(o, 0, (size_t)size * sizeof *o);
                            continue;
                        }
                        for (int x = 0; x < x0; x++)
                            o[x] = 0.0f;
                        memcpy(o + x0, src + sy * size + x0 + kx - pad,
                               (size_t)(x1 - x0) * sizeof *o);
                        for (int x = x1; x < size; x++)
                            o[x] = 0.0f;
                    }
                }
            }
}

/* The adjoint of im2col: out[c][i][y][x] += the col entries that copied it (images i0..). */
static void col2im(const float *col, int c_in, int n_all, int i0, int n, int size, int k,
                   float *out)
{
    int area = size * size, pad = k / 2;
    size_t row = (size_t)n * area;
    for (int c = 0; c < c_in; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *src = col + ((size_t)(c * k + ky) * k + kx) * row;
                int x0, x1;
                span(size, kx, pad, &x0, &x1);
                for (int i = 0; i < n; i++) {
                    float *dst = out + ((size_t)c * n_all + i0 + i) * area;
                    for (int y = 0; y < size; y++) {
                        int sy = y + ky - pad;
                        if (sy < 0 || sy >= size)
                            continue;
                        const float *s = src + (size_t)i * area + (size_t)y * size;
                        float *d = dst + sy * size + kx - pad;
                        for (int x = x0; x < x1; x++)
                            d[x] += s[x];
                    }
                }
            }
}

/* [c][n][area] <-> [n][c][area] */
static void to_sample_major(const float *in, int c, int n, int area, float *out)
{
    for (int ch = 0; ch < c; ch++)
        for (int i = 0; i < n; i++)
            memcpy(out + ((size_t)i * c + ch) * area, in + ((size_t)ch * n + i) * area,
                   (size_t)area * sizeof *out);
}

static void to_channel_major(const float *in, int c, int n, int area, float *out)
{
    for (int i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            memcpy(out + ((size_t)ch * n + i) * area, in + ((size_t)i * c + ch) * area,
                   (size_t)area * sizeof *out);
}

/* Images per im2col chunk: about 2 MB of columns, the size of a core's L2 cache. */
static int chunk_images(int K, int area)
{
    int c = (int)(((size_t)1 << 19) / ((size_t)K * area));
    return c > 0 ? c : 1;
}

static void relu(float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

void nn_train_ws_forward(const nn_disc_desc *d, nn_train_ws *ws, int n, const float *x,
                         float *logits)
{
    int area = area_of(d), fd = first_dense(d);
    int na = n * area;
    ws->n = n;
    to_channel_major(x, d->planes, n, area, ws->x);
    const float *in = ws->x;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        float *out = ws->act[l];
        if (L->kind == NN_DISC_CONV) {
            const nn_conv_desc *c = &L->conv;
            int K = c->c_in * c->ky * c->kx;
            if (c->ky == 1) {
                nn_train_sgemm(ws->gemm, false, false, c->c_out, na, K, c->w, K, in, na, 0.0f,
                               out, na);
            } else {
                int chunk = chunk_images(K, area);
                for (int i0 = 0; i0 < n; i0 += chunk) {
                    int cnt = n - i0 < chunk ? n - i0 : chunk;
                    im2col(in, c->c_in, n, i0, cnt, d->size, c->ky, ws->col);
                    nn_train_sgemm(ws->gemm, false, false, c->c_out, cnt * area, K, c->w, K,
                                   ws->col, cnt * area, 0.0f, out + (size_t)i0 * area, na);
                }
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
            for (size_t i = 0; i < outs; i++)
                if (out[i] <= 0.0f)
                    dz[i] = 0.0f;
        const float *in = l == 0 ? ws->x : ws->act[l - 1];
        if (L->kind == NN_DISC_DENSE) {
            const nn_matmul_desc *m = &L->dense;
            if (l == fd && fd > 0)
                in = ws->flat;
            float *gw = grad + off[l], *gb = gw + (size_t)m->c_in * m->c_out;
            nn_train_sgemm(ws->gemm, true, false, m->c_in, m->c_out, n, in,
                        m->c_in, dz, m->c_out, 1.0f, gw, m->c_out);
            for (int i = 0; i < n; i++)
                for (int o = 0; o < m->c_out; o++)
                    gb[o] += dz[(size_t)i * m->c_out + o];
            if (l == 0)
                break;
            float *dst = l == fd ? ws->dflat : dprev;
            nn_train_sgemm(ws->gemm, false, true, n, m->c_in, m->c_out, dz,
                        m->c_out, m->w, m->c_out, 0.0f, dst, m->c_in);
            if (l == fd)
                to_channel_major(ws->dflat, d->layer[l - 1].conv.c_out, n, area, dprev);
        } else {
            const nn_conv_desc *c = &L->conv;
            int K = c->c_in * c->ky * c->kx;
            float *gw = grad + off[l], *gb = gw + (size_t)c->c_out * K;
            for (int o = 0; o < c->c_out; o++) {
                const float *row = dz + (size_t)o * na;
                double s = 0;
                for (int j = 0; j < na; j++)
                    s += row[j];
                gb[o] += (float)s;
            }
            if (c->ky == 1) {
                nn_train_sgemm(ws->gemm, false, true, c->c_out, K, na, dz, na, in, na, 1.0f, gw,
                               K);
                if (l > 0)
                    nn_train_sgemm(ws->gemm, true, false, K, na, c->c_out, c->w, K, dz, na, 0.0f,
                                   dprev, na);
            } else {
                /* a few images at a time, so that their im2col stays in the cache */
                int chunk = chunk_images(K, area);
                if (l > 0)
                    memset(dprev, 0, (size_t)c->c_in * na * sizeof *dprev);
                for (int i0 = 0; i0 < n; i0 += chunk) {
                    int cnt = n - i0 < chunk ? n - i0 : chunk, cols = cnt * area;
                    const float *dzc = dz + (size_t)i0 * area;
                    im2col(in, c->c_in, n, i0, cnt, d->size, c->ky, ws->col);
                    nn_train_sgemm(ws->gemm, false, true, c->c_out, K, cols, dzc, na, ws->col,
                                   cols, 1.0f, gw, K);
                    if (l == 0)
                        continue;
                    nn_train_sgemm(ws->gemm, true, false, K, cols, c->c_out, c->w, K, dzc, na,
                                   0.0f, ws->col, cols);
                    col2im(ws->col, c->c_in, n, i0, cnt, d->size, c->ky, dprev);
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

struct nn_trainer {
    nn_disc_desc *d;
    int threads, max_batch;
    size_t P;
    nn_train_ws **ws;        /* [threads] */
    float **grads;           /* [threads][P] */
    float *grad, *m, *v;     /* [P] */
    float *dlogits, *logits; /* [max_batch] */
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
    int share = (max_batch + threads - 1) / threads;
    bool ok = (t->ws = calloc((size_t)threads, sizeof *t->ws)) &&
              (t->grads = calloc((size_t)threads, sizeof *t->grads)) &&
              (t->grad = calloc(t->P, sizeof *t->grad)) && (t->m = calloc(t->P, sizeof *t->m)) &&
              (t->v = calloc(t->P, sizeof *t->v)) &&
              (t->dlogits = calloc((size_t)max_batch, sizeof *t->dlogits)) &&
              (t->logits = calloc((size_t)max_batch, sizeof *t->logits));
    for (int i = 0; ok && i < threads; i++)
        ok = (t->ws[i] = nn_train_ws_new(d, share, true)) &&
             (t->grads[i] = calloc(t->P, sizeof *t->grads[i]));
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
    memset(g, 0, t->P * sizeof *g);
    j->loss = nn_train_bce(cnt, j->logits + j->from, j->labels + j->from, t->dlogits + j->from,
                           j->n) * cnt;
    nn_train_ws_backward(t->d, t->ws[j->index], t->dlogits + j->from, g);
    return NULL;
}

/* Runs the shares of a batch, the calling thread taking the first. */
static double run_shares(nn_trainer *t, int n, const float *x, const float *labels, float *logits,
                         bool backward)
{
    share_job job[64];
    pthread_t th[64];
    bool started[64] = {false};
    for (int i = 0; i < t->threads; i++)
        job[i] = (share_job){t, i, (int)((long)n * i / t->threads),
                             (int)((long)n * (i + 1) / t->threads), n, x, labels, logits,
                             backward, 0.0};
    for (int i = 1; i < t->threads; i++)
        started[i] = pthread_create(&th[i], NULL, run_share, &job[i]) == 0;
    run_share(&job[0]);
    for (int i = 1; i < t->threads; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            run_share(&job[i]);
    }
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
    double loss = run_shares(t, n, x, labels, t->logits, true);
    if (logits)
        memcpy(logits, t->logits, (size_t)n * sizeof *logits);
    memcpy(t->grad, t->grads[0], t->P * sizeof *t->grad);
    for (int i = 1; i < t->threads; i++) {
        if ((long)n * (i + 1) / t->threads == (long)n * i / t->threads)
            continue; /* an empty share computed nothing */
        const float *g = t->grads[i];
        for (size_t p = 0; p < t->P; p++)
            t->grad[p] += g[p];
    }
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
        run_shares(t, cnt, x + (size_t)from * in, NULL, logits + from, false);
    }
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
    double c1 = 1.0 - pow(o->beta1, (double)t->step), c2 = 1.0 - pow(o->beta2, (double)t->step);
    float step_size = (float)(o->lr / c1), c2s = (float)sqrt(c2);
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], p = 0;
    int nt = weights_disc_tensors(t->d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int k = 0; k < nt; k++)
        for (size_t i = 0; i < len[k]; i++, p++) {
            float g = t->grad[p];
            t->m[p] = o->beta1 * t->m[p] + (1.0f - o->beta1) * g;
            t->v[p] = o->beta2 * t->v[p] + (1.0f - o->beta2) * g * g;
            ptr[k][i] -= step_size * t->m[p] / (sqrtf(t->v[p]) / c2s + o->eps);
        }
}

const float *nn_trainer_grad(nn_trainer *t)
{
#ifdef SHIDO_HAVE_CUDA
    if (t->cuda && !nn_cuda_trainer_pull(t->cuda, t->grad, NULL, NULL, NULL))
        snprintf(t->err, sizeof t->err, "%s", nn_cuda_trainer_error(t->cuda));
#endif
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
