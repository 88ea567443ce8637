/* nn/cpu/cpu_backend.c -- the "cpu" backend (nn/backend.h): whole batches in NCHW through the
 * layers of cpu_layers.h, single-threaded (one BLAS per search worker, each with its own
 * context).
 *
 * Activations are NHWC inside (cpu_layers.h says why); inputs and outputs are transposed at the
 * edges. At load every 3x3 convolution gets its Winograd-transformed filter, other kernels
 * their weights reordered for im2col, and every batch norm its folded scale and shift. The forward passes mirror nn/ref's (kata_forward.c, lz_forward.c)
 * layer for layer, with each batch norm + activation fused into the convolution before it (its
 * output transform) or after it (its input transform, KataGo's pre-activation), and residual
 * adds fused into the convolution closing the block. KataGo 1.17's transformer blocks run on
 * the same NHWC activations through the convolutions' GEMM kernels: products over every point
 * of the batch with weights packed at load (the projections; the first feed-forward product
 * and its gate as one), and per image and head (scores and their product with the values). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"
#include "nn/cpu/cpu_layers.h"
#include "nn/train/train.h"
#include "weights/desc_disc.h"
#include "weights/desc_kata.h"
#include "weights/desc_lz.h"

#define CPU_MAX_AREA 361

/* Prepared data of one layer of the description, found by the layer's address: a Winograd
 * filter for a 3x3 convolution (wino), the reordered weights of another kernel (NULL for 1x1:
 * the description's own), scale and shift for a batch norm. A net has at most a few hundred
 * layers, so a linear search per layer costs nothing next to the layer itself. */
typedef struct cpu_prep {
    const void *layer;
    bool wino;
    float *a, *b;
} cpu_prep;

typedef struct cpu_weights {
    const nn_desc *d;
    int num, cap;
    cpu_prep *prep;
    bool oom;
    int max_c;                /* channels of the widest activation */
    int max_vec;              /* longest per-position vector: 3 * pooled channels, matmul sizes */
    size_t gemm_scratch;      /* largest nn_cpu_gemm_conv_scratch of one 19x19 position */
    int depth;                /* nesting of KataGo's nested bottleneck blocks (0: none) */
    int max_tf;               /* widest per-point vector of a transformer block (0: none) */
    size_t att_scratch;       /* largest nn_cpu_attention_scratch on 19x19 */
} cpu_weights;

typedef struct cpu_level {
    float *a, *t, *g;         /* [max_batch][361][max_c] each */
} cpu_level;

typedef struct cpu_ctx {
    const cpu_weights *w;
    float *x;                 /* the trunk */
    cpu_level *lv;            /* [depth + 1]: block scratch per nesting level */
    float *v, *m;             /* Winograd transformed inputs and products */
    float *scratch;           /* nn_cpu_gemm_conv */
    float *pooled, *bias, *hidden;   /* [max_batch][max_vec] */
    nn_train_ws *disc;        /* the tsumego discriminator's activations (nn/train) */
    float *tf[4];             /* transformer blocks: [max_batch][361][max_tf] each */
    float *att;               /* nn_cpu_attention's scratch */
} cpu_ctx;

static const cpu_prep *prep_find(const cpu_weights *w, const void *layer)
{
    for (int i = 0; i < w->num; i++)
        if (w->prep[i].layer == layer)
            return &w->prep[i];
    fprintf(stderr, "%s: layer %p was never prepared\n", __func__, layer);
    abort();
}

static cpu_prep *prep_add(cpu_weights *w, const void *layer, size_t a_len, size_t b_len)
{
    if (w->oom)
        return NULL;
    if (w->num == w->cap) {
        int cap = w->cap ? 2 * w->cap : 64;
        cpu_prep *grown = realloc(w->prep, sizeof *grown * (size_t)cap);
        if (!grown) {
            w->oom = true;
            return NULL;
        }
        w->prep = grown;
        w->cap = cap;
    }
    cpu_prep *p = &w->prep[w->num];
    p->layer = layer;
    p->wino = false;
    p->a = a_len ? malloc(sizeof *p->a * a_len) : NULL;
    p->b = b_len ? malloc(sizeof *p->b * b_len) : NULL;
    if ((a_len && !p->a) || (b_len && !p->b)) {
        free(p->a);
        free(p->b);
        w->oom = true;
        return NULL;
    }
    w->num++;
    return p;
}

static int max_int(int a, int b) { return a > b ? a : b; }

static bool is_winograd(const nn_conv_desc *c)
{
    return c->ky == 3 && c->kx == 3 && c->dil_y == 1 && c->dil_x == 1;
}

static void prep_conv(cpu_weights *w, const nn_conv_desc *c)
{
    w->max_c = max_int(w->max_c, max_int(c->c_in, c->c_out));
    if (!is_winograd(c)) {
        size_t s = nn_cpu_gemm_conv_scratch(c, 1, 19, 19);
        w->gemm_scratch = s > w->gemm_scratch ? s : w->gemm_scratch;
        cpu_prep *p = prep_add(w, c, nn_cpu_gemm_weights_len(c), 0);
        if (p)
            nn_cpu_gemm_weights(c, p->a);
        return;
    }
    cpu_prep *p = prep_add(w, c, nn_cpu_wino_filter_len(c->c_in, c->c_out), 0);
    if (p) {
        p->wino = true;
        nn_cpu_wino_filter(c->c_out, c->c_in, c->w, p->a);
    }
}

static void prep_bn(cpu_weights *w, const nn_bn_desc *b)
{
    w->max_c = max_int(w->max_c, b->c);
    cpu_prep *p = prep_add(w, b, (size_t)b->c, (size_t)b->c);
    if (p)
        nn_cpu_bn_fold(b, p->a, p->b);
}

static void note_matmul(cpu_weights *w, const nn_matmul_desc *m)
{
    w->max_vec = max_int(w->max_vec, max_int(m->c_in, m->c_out));
}

/* cos and sin of every rotary angle of an attention block at each point of a 19x19 tensor,
 * [tables][pairs][361] (nn_cpu_rope; weights/desc_kata.h's nn_kata_rope_fill). */
static void prep_rope(cpu_weights *w, const nn_kata_attention *a)
{
    size_t len = (size_t)nn_kata_rope_tables(a) * (a->q_dim / 2) * 361;
    cpu_prep *p = prep_add(w, a, len, len);
    if (p)
        nn_kata_rope_fill(a, p->a, p->b);
}

/* A transformer block's matmul packed for nn_cpu_gemm_packed. */
static void prep_matmul(cpu_weights *w, const nn_matmul_desc *m)
{
    cpu_prep *p = prep_add(w, m, nn_cpu_pack_len(m->c_in, m->c_out), 0);
    if (p)
        nn_cpu_pack(m->c_in, m->c_out, m->w, (size_t)m->c_out, false, p->a);
}

/* The first feed-forward product and the gate side by side, [c][2 * ffn_c], packed. */
static void prep_ffn(cpu_weights *w, const nn_kata_ffn *f)
{
    float *both = malloc(sizeof *both * (size_t)f->c * 2 * f->ffn_c);
    cpu_prep *p = both ? prep_add(w, f, nn_cpu_pack_len(f->c, 2 * f->ffn_c), 0) : NULL;
    w->oom |= both == NULL;
    if (p) {
        for (int i = 0; i < f->c; i++) {
            memcpy(both + (size_t)i * 2 * f->ffn_c, f->linear1.w + (size_t)i * f->ffn_c,
                   sizeof(float) * f->ffn_c);
            memcpy(both + ((size_t)i * 2 + 1) * f->ffn_c, f->gate.w + (size_t)i * f->ffn_c,
                   sizeof(float) * f->ffn_c);
        }
        nn_cpu_pack(f->c, 2 * f->ffn_c, both, (size_t)2 * f->ffn_c, false, p->a);
    }
    free(both);
    prep_matmul(w, &f->linear2);
}

static void prep_kata_block(cpu_weights *w, const nn_kata_block *b, int depth)
{
    w->depth = max_int(w->depth, depth);
    if (b->kind == NN_KATA_BLOCK_ATTENTION) {
        const nn_kata_attention *a = &b->attn;
        w->max_c = max_int(w->max_c, a->norm.c);
        w->max_tf = max_int(w->max_tf, max_int(max_int(a->q.c_out, a->k.c_out),
                                               max_int(a->v.c_out, a->out.c_in)));
        size_t s = nn_cpu_attention_scratch(CPU_MAX_AREA, a->q_dim, a->v_dim);
        w->att_scratch = s > w->att_scratch ? s : w->att_scratch;
        prep_matmul(w, &a->q);
        prep_matmul(w, &a->k);
        prep_matmul(w, &a->v);
        prep_matmul(w, &a->out);
        if (a->rope)
            prep_rope(w, a);
        return;
    }
    if (b->kind == NN_KATA_BLOCK_FFN) {
        w->max_c = max_int(w->max_c, b->ffn.c);
        w->max_tf = max_int(w->max_tf, 2 * b->ffn.ffn_c);
        prep_ffn(w, &b->ffn);
        return;
    }
    prep_bn(w, &b->bn1);
    prep_conv(w, &b->conv1);
    if (b->kind == NN_KATA_BLOCK_GPOOL) {
        prep_conv(w, &b->gpool_conv);
        prep_bn(w, &b->gpool_bn);
        note_matmul(w, &b->gpool_to_bias);
        w->max_vec = max_int(w->max_vec, 3 * b->gpool_conv.c_out);
    }
    for (int i = 0; i < b->num_inner; i++)
        prep_kata_block(w, &b->inner[i], depth + 1);
    prep_bn(w, &b->bn2);
    prep_conv(w, &b->conv2);
}

static void prep_kata(cpu_weights *w, const nn_kata_desc *k)
{
    const nn_kata_trunk *t = &k->trunk;
    prep_conv(w, &t->initial_conv);
    note_matmul(w, &t->initial_matmul);
    if (k->meta_encoder_version > 0) {
        note_matmul(w, &k->meta.mul1);
        note_matmul(w, &k->meta.mul2);
        note_matmul(w, &k->meta.mul3);
    }
    for (int i = 0; i < t->num_blocks; i++)
        prep_kata_block(w, &t->blocks[i], 0);
    if (t->norm_kind == 1)
        w->max_c = max_int(w->max_c, t->tip_rms.c);
    else
        prep_bn(w, &t->tip_bn);
    const nn_kata_policy_head *p = &k->policy;
    prep_conv(w, &p->p1_conv);
    prep_conv(w, &p->g1_conv);
    prep_bn(w, &p->g1_bn);
    note_matmul(w, &p->gpool_to_bias);
    prep_bn(w, &p->p1_bn);
    prep_conv(w, &p->p2_conv);
    note_matmul(w, &p->gpool_to_pass);
    if (p->has_pass2)
        note_matmul(w, &p->gpool_to_pass2);
    w->max_vec = max_int(w->max_vec, 3 * p->g1_conv.c_out);
    const nn_kata_value_head *v = &k->value;
    prep_conv(w, &v->v1_conv);
    prep_bn(w, &v->v1_bn);
    note_matmul(w, &v->v2);
    note_matmul(w, &v->v3);
    note_matmul(w, &v->sv3);
    prep_conv(w, &v->ownership_conv);
    w->max_vec = max_int(w->max_vec, 3 * v->v1_conv.c_out);
}

static void prep_lz(cpu_weights *w, const struct nn_lz_desc *lz)
{
    prep_conv(w, &lz->input_conv);
    prep_bn(w, &lz->input_bn);
    for (int i = 0; i < lz->blocks; i++) {
        prep_conv(w, &lz->block[i].conv1);
        prep_bn(w, &lz->block[i].bn1);
        prep_conv(w, &lz->block[i].conv2);
        prep_bn(w, &lz->block[i].bn2);
    }
    prep_conv(w, &lz->policy_conv);
    prep_bn(w, &lz->policy_bn);
    note_matmul(w, &lz->policy_fc);
    prep_conv(w, &lz->value_conv);
    prep_bn(w, &lz->value_bn);
    note_matmul(w, &lz->value_fc1);
    note_matmul(w, &lz->value_fc2);
}

static void cpu_free(void *weights)
{
    cpu_weights *w = weights;
    if (!w)
        return;
    for (int i = 0; i < w->num; i++) {
        free(w->prep[i].a);
        free(w->prep[i].b);
    }
    free(w->prep);
    free(w);
}

static void *cpu_load(const nn_desc *d, const char *options, char *err, int err_len)
{
    if (options) {
        snprintf(err, (size_t)err_len, "backend cpu: unknown option \"%s\" (it takes none)",
                 options);
        return NULL;
    }
    nn_cpu_init();
    cpu_weights *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, (size_t)err_len, "%s: cpu backend: out of memory", d->source);
        return NULL;
    }
    w->d = d;
    if (d->family == NN_FAMILY_DISC)
        return w; /* nn/train's forward takes the description's weights as they are */
    if (d->family == NN_FAMILY_KATA)
        prep_kata(w, d->kata);
    else
        prep_lz(w, d->lz);
    if (w->oom || w->max_c > NN_CPU_MAX_CHANNELS || w->max_vec > NN_CPU_MAX_CHANNELS * 3 ||
        w->max_tf > NN_CPU_MAX_CHANNELS * 2) {
        snprintf(err, (size_t)err_len, w->oom ? "%s: cpu backend: out of memory for prepared weights"
                                              : "%s: cpu backend: layers wider than %d channels",
                 d->source, NN_CPU_MAX_CHANNELS);
        cpu_free(w);
        return NULL;
    }
    return w;
}

static void cpu_context_free(void *ctx)
{
    cpu_ctx *C = ctx;
    if (!C)
        return;
    for (int l = 0; C->lv && l <= C->w->depth; l++) {
        free(C->lv[l].a);
        free(C->lv[l].t);
        free(C->lv[l].g);
    }
    free(C->lv);
    free(C->x);
    free(C->v);
    free(C->m);
    free(C->scratch);
    free(C->pooled);
    free(C->bias);
    free(C->hidden);
    nn_train_ws_free(C->disc);
    for (int i = 0; i < 4; i++)
        free(C->tf[i]);
    free(C->att);
    free(C);
}

static void *cpu_context_new(const nn_desc *d, const void *weights, int max_batch, char *err,
                             int err_len)
{
    const cpu_weights *w = weights;
    cpu_ctx *C = calloc(1, sizeof *C);
    if (!C) {
        snprintf(err, (size_t)err_len, "%s: cpu backend: out of memory", d->source);
        return NULL;
    }
    C->w = w;
    if (d->family == NN_FAMILY_DISC) {
        C->disc = nn_train_ws_new(d->disc, max_batch, false);
        if (!C->disc || !nn_train_ws_freeze(C->disc, d->disc)) {
            nn_train_ws_free(C->disc);
            snprintf(err, (size_t)err_len, "%s: cpu backend: out of memory for a batch of %d",
                     d->source, max_batch);
            free(C);
            return NULL;
        }
        return C;
    }
    size_t act = (size_t)max_batch * w->max_c * CPU_MAX_AREA;
    size_t wino = nn_cpu_wino_scratch(max_batch, 19, 19, w->max_c);
    size_t vec = (size_t)max_batch * w->max_vec + 1;
    bool ok = (C->lv = calloc((size_t)w->depth + 1, sizeof *C->lv)) != NULL;
    for (int l = 0; ok && l <= w->depth; l++) {
        C->lv[l].a = malloc(sizeof(float) * act);
        C->lv[l].t = malloc(sizeof(float) * act);
        C->lv[l].g = malloc(sizeof(float) * act);
        ok = C->lv[l].a && C->lv[l].t && C->lv[l].g;
    }
    /* calloc where a BLAS product is written with beta = 0 over memory never yet written */
    ok = ok && (C->x = malloc(sizeof(float) * act)) && (C->v = malloc(sizeof(float) * wino)) &&
         (C->m = malloc(sizeof(float) * wino)) &&
         (C->scratch = calloc(w->gemm_scratch * (size_t)max_batch + 1, sizeof(float))) &&
         (C->pooled = malloc(sizeof(float) * vec)) && (C->bias = malloc(sizeof(float) * vec)) &&
         (C->hidden = malloc(sizeof(float) * vec));
    if (ok && w->max_tf) {
        size_t tf = (size_t)max_batch * CPU_MAX_AREA * w->max_tf;
        for (int i = 0; i < 4; i++)
            ok = ok && (C->tf[i] = calloc(tf, sizeof(float)));
        ok = ok && (C->att = calloc(w->att_scratch, sizeof(float)));
    }
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s: cpu backend: out of memory for a batch of %d",
                 d->source, max_batch);
        cpu_context_free(C);
        return NULL;
    }
    return C;
}

/* ---- layers by description -------------------------------------------------------------- */

static nn_cpu_affine affine(const cpu_ctx *C, const nn_bn_desc *b, nn_activation act)
{
    const cpu_prep *p = prep_find(C->w, b);
    return (nn_cpu_affine){p->a, p->b, act};
}

/* The epilogue of batch norm b and act, with an optional per-image bias before it. */
static nn_cpu_epilogue bn_epilogue(const cpu_ctx *C, const nn_bn_desc *b, nn_activation act,
                                   const float *image_bias)
{
    const cpu_prep *p = prep_find(C->w, b);
    return (nn_cpu_epilogue){.image_bias = image_bias, .scale = p->a, .shift = p->b, .act = act};
}

static void conv(cpu_ctx *C, const nn_conv_desc *c, int n, int height, int width, const float *x,
                 const nn_cpu_affine *pre, const nn_cpu_epilogue *e, float *y)
{
    nn_cpu_epilogue with_bias = *e;
    with_bias.conv_bias = c->bias;
    const cpu_prep *p = prep_find(C->w, c);
    if (p->wino)
        nn_cpu_wino_conv(c->c_in, c->c_out, p->a, n, height, width, x, pre, &with_bias, C->v,
                         C->m, y);
    else
        nn_cpu_gemm_conv(c, p->a, n, height, width, x, pre, &with_bias, C->scratch, y);
}

static void activate_all(nn_activation act, size_t len, float *x)
{
    for (size_t i = 0; i < len; i++)
        x[i] = nn_cpu_activate(act, x[i]);
}

/* ---- KataGo -------------------------------------------------------------------------------- */

/* x[n][area][c] += attention(rms_norm(x)) (weights/desc_kata.h); u is scratch of x's size. */
static void kata_attention(cpu_ctx *C, const nn_kata_attention *a, int n, int height, int width,
                           float *u, float *x)
{
    size_t area = (size_t)height * width, rows = (size_t)n * area;
    float *q = C->tf[0], *k = C->tf[1], *v = C->tf[2], *o = C->tf[3];
    nn_cpu_rms_norm(rows, a->norm.c, a->norm.eps, a->norm.weight, x, u);
    nn_cpu_gemm_packed(a->q.c_in, a->q.c_out, prep_find(C->w, &a->q)->a, rows, u, false, q);
    nn_cpu_gemm_packed(a->k.c_in, a->k.c_out, prep_find(C->w, &a->k)->a, rows, u, false, k);
    nn_cpu_gemm_packed(a->v.c_in, a->v.c_out, prep_find(C->w, &a->v)->a, rows, u, false, v);
    if (a->rope) {
        const cpu_prep *p = prep_find(C->w, a);
        int tables = nn_kata_rope_tables(a);
        nn_cpu_rope(n, height, width, a->heads, tables, a->q_dim, p->a, p->b, q);
        nn_cpu_rope(n, height, width, a->kv_heads, tables, a->q_dim, p->a, p->b, k);
    }
    for (int i = 0; i < n; i++)
        nn_cpu_attention((int)area, a->heads, a->kv_heads, a->q_dim, a->v_dim,
                         q + i * area * a->q.c_out, k + i * area * a->k.c_out,
                         v + i * area * a->v.c_out, C->att, o + i * area * a->out.c_in);
    nn_cpu_gemm_packed(a->out.c_in, a->out.c_out, prep_find(C->w, &a->out)->a, rows, o, true, x);
}

/* x += SwiGLU feed-forward of rms_norm(x); u is scratch of x's size. */
static void kata_ffn(cpu_ctx *C, const nn_kata_ffn *f, int n, int height, int width, float *u,
                     float *x)
{
    size_t rows = (size_t)n * height * width;
    nn_cpu_rms_norm(rows, f->c, f->norm.eps, f->norm.weight, x, u);
    nn_cpu_gemm_packed(f->c, 2 * f->ffn_c, prep_find(C->w, f)->a, rows, u, false, C->tf[0]);
    nn_cpu_swiglu(rows, f->ffn_c, C->tf[0], C->tf[1]);
    nn_cpu_gemm_packed(f->ffn_c, f->c, prep_find(C->w, &f->linear2)->a, rows, C->tf[1], true, x);
}

/* In place: the RMS-norm trunk tip, x = act(x / rms * gamma + beta) per image (spatial) or per
 * point. */
static void kata_tip_rms(const nn_kata_tip_rms *r, nn_activation act, int n, int area, float *x)
{
    float scale[NN_CPU_MAX_CHANNELS];
    for (int i = 0; i < n; i++) {
        float *xi = x + (size_t)i * area * r->c;
        int points = r->spatial ? 1 : area;
        size_t span = r->spatial ? (size_t)area * r->c : (size_t)r->c;
        for (int p = 0; p < points; p++) {
            double ss = nn_cpu_sum_squares(span, xi + p * span);
            float inv = (float)(1.0 / sqrt(ss / (double)span + r->eps));
            for (int ch = 0; ch < r->c; ch++)
                scale[ch] = inv * r->gamma[ch];
            nn_cpu_affine tip = {scale, r->beta, act};
            nn_cpu_affine_apply(&tip, span / r->c, r->c, xi + p * span, xi + p * span);
        }
    }
}

static void kata_block(cpu_ctx *C, const nn_kata_block *b, int level, int n, int height,
                       int width, float *x)
{
    cpu_level *L = &C->lv[level];
    int area = height * width;
    if (b->kind == NN_KATA_BLOCK_ATTENTION || b->kind == NN_KATA_BLOCK_FFN) {
        if (b->kind == NN_KATA_BLOCK_ATTENTION)
            kata_attention(C, &b->attn, n, height, width, L->a, x);
        else
            kata_ffn(C, &b->ffn, n, height, width, L->a, x);
        return;
    }
    nn_cpu_affine pre1 = affine(C, &b->bn1, b->act1), pre2 = affine(C, &b->bn2, b->act2);
    nn_cpu_epilogue plain = {.act = NN_ACT_IDENTITY};
    nn_cpu_epilogue add = {.residual = x, .act = NN_ACT_IDENTITY};
    switch (b->kind) {
    case NN_KATA_BLOCK_ORDINARY: {
        nn_cpu_epilogue e1 = bn_epilogue(C, &b->bn2, b->act2, NULL);
        conv(C, &b->conv1, n, height, width, x, &pre1, &e1, L->t);
        conv(C, &b->conv2, n, height, width, L->t, NULL, &add, x);
        break;
    }
    case NN_KATA_BLOCK_GPOOL: {
        /* the pooled branch reads the activated input too, so it is made once */
        nn_cpu_affine_apply(&pre1, (size_t)n * area, b->bn1.c, x, L->a);
        nn_cpu_epilogue eg = bn_epilogue(C, &b->gpool_bn, b->gpool_act, NULL);
        conv(C, &b->gpool_conv, n, height, width, L->a, NULL, &eg, L->g);
        nn_cpu_kata_pool(n, b->gpool_conv.c_out, area, L->g, 0, C->pooled);
        nn_cpu_matmul_batch(&b->gpool_to_bias, n, C->pooled, C->bias);
        nn_cpu_epilogue e1 = bn_epilogue(C, &b->bn2, b->act2, C->bias);
        conv(C, &b->conv1, n, height, width, L->a, NULL, &e1, L->t);
        conv(C, &b->conv2, n, height, width, L->t, NULL, &add, x);
        break;
    }
    case NN_KATA_BLOCK_NESTED:
        conv(C, &b->conv1, n, height, width, x, &pre1, &plain, L->t);
        for (int i = 0; i < b->num_inner; i++)
            kata_block(C, &b->inner[i], level + 1, n, height, width, L->t);
        conv(C, &b->conv2, n, height, width, L->t, &pre2, &add, x);
        break;
    case NN_KATA_BLOCK_ATTENTION:
    case NN_KATA_BLOCK_FFN:
        break;   /* above */
    }
}

/* bias[n][trunk channels] += the metadata encoder's output for meta[n][num_inputs] */
static void kata_meta_bias(cpu_ctx *C, const nn_kata_meta_encoder *m, int n, const float *meta,
                           float *bias)
{
    nn_cpu_matmul_batch(&m->mul1, n, meta, C->hidden);
    activate_all(m->act1, (size_t)n * m->mul1.c_out, C->hidden);
    nn_cpu_matmul_batch(&m->mul2, n, C->hidden, C->pooled);
    activate_all(m->act2, (size_t)n * m->mul2.c_out, C->pooled);
    nn_cpu_matmul_batch(&m->mul3, n, C->pooled, C->hidden);
    for (size_t i = 0; i < (size_t)n * m->mul3.c_out; i++)
        bias[i] += C->hidden[i];
}

static void kata_forward(cpu_ctx *C, const nn_kata_desc *k, const nn_backend_batch *b)
{
    int n = b->n, height = b->height, width = b->width, area = height * width;
    const nn_kata_trunk *t = &k->trunk;
    cpu_level *L = &C->lv[0];
    nn_cpu_transpose(n, k->num_spatial, area, b->spatial, L->g);
    nn_cpu_matmul_batch(&t->initial_matmul, n, b->global, C->bias);
    if (b->meta && k->meta_encoder_version > 0)
        kata_meta_bias(C, &k->meta, n, b->meta, C->bias);
    nn_cpu_epilogue e0 = {.image_bias = C->bias, .act = NN_ACT_IDENTITY};
    conv(C, &t->initial_conv, n, height, width, L->g, NULL, &e0, C->x);
    for (int i = 0; i < t->num_blocks; i++)
        kata_block(C, &t->blocks[i], 0, n, height, width, C->x);
    if (t->norm_kind == 1) {
        kata_tip_rms(&t->tip_rms, t->tip_act, n, area, C->x);
    } else {
        nn_cpu_affine tip = affine(C, &t->tip_bn, t->tip_act);
        nn_cpu_affine_apply(&tip, (size_t)n * area, t->tip_bn.c, C->x, C->x);
    }

    const nn_kata_policy_head *p = &k->policy;
    nn_cpu_epilogue eg = bn_epilogue(C, &p->g1_bn, p->g1_act, NULL);
    conv(C, &p->g1_conv, n, height, width, C->x, NULL, &eg, L->g);
    nn_cpu_kata_pool(n, p->g1_conv.c_out, area, L->g, 0, C->pooled);
    nn_cpu_matmul_batch(&p->gpool_to_bias, n, C->pooled, C->bias);
    nn_cpu_epilogue ep = bn_epilogue(C, &p->p1_bn, p->p1_act, C->bias);
    conv(C, &p->p1_conv, n, height, width, C->x, NULL, &ep, L->t);
    nn_cpu_epilogue plain = {.act = NN_ACT_IDENTITY};
    conv(C, &p->p2_conv, n, height, width, L->t, NULL, &plain, L->a);
    nn_cpu_transpose(n, area, p->out_channels, L->a, b->policy);
    if (p->has_pass2) {
        nn_cpu_matmul_batch(&p->gpool_to_pass, n, C->pooled, C->hidden);
        activate_all(p->pass_act, (size_t)n * p->gpool_to_pass.c_out, C->hidden);
        nn_cpu_matmul_batch(&p->gpool_to_pass2, n, C->hidden, b->pass);
    } else {
        nn_cpu_matmul_batch(&p->gpool_to_pass, n, C->pooled, b->pass);
    }

    const nn_kata_value_head *v = &k->value;
    nn_cpu_epilogue ev = bn_epilogue(C, &v->v1_bn, v->v1_act, NULL);
    conv(C, &v->v1_conv, n, height, width, C->x, NULL, &ev, L->a);
    nn_cpu_kata_pool(n, v->v1_conv.c_out, area, L->a, 1, C->pooled);
    nn_cpu_matmul_batch(&v->v2, n, C->pooled, C->hidden);
    activate_all(v->v2_act, (size_t)n * v->v2.c_out, C->hidden);
    nn_cpu_matmul_batch(&v->v3, n, C->hidden, b->value);
    nn_cpu_matmul_batch(&v->sv3, n, C->hidden, b->score);
    conv(C, &v->ownership_conv, n, height, width, L->a, NULL, &plain, b->ownership);
}

/* ---- Leela Zero ---------------------------------------------------------------------------- */

static void lz_forward(cpu_ctx *C, const struct nn_lz_desc *lz, const nn_backend_batch *b)
{
    int n = b->n, height = NN_LZ_BOARD_SIZE, width = NN_LZ_BOARD_SIZE;
    cpu_level *L = &C->lv[0];
    nn_cpu_transpose(n, NN_LZ_INPUT_PLANES, NN_LZ_POINTS, b->spatial, L->g);
    nn_cpu_epilogue e = bn_epilogue(C, &lz->input_bn, NN_ACT_RELU, NULL);
    conv(C, &lz->input_conv, n, height, width, L->g, NULL, &e, C->x);
    for (int i = 0; i < lz->blocks; i++) {
        const nn_lz_block *blk = &lz->block[i];
        nn_cpu_epilogue e1 = bn_epilogue(C, &blk->bn1, NN_ACT_RELU, NULL);
        conv(C, &blk->conv1, n, height, width, C->x, NULL, &e1, L->t);
        nn_cpu_epilogue e2 = bn_epilogue(C, &blk->bn2, NN_ACT_RELU, NULL);
        e2.residual = C->x;
        conv(C, &blk->conv2, n, height, width, L->t, NULL, &e2, C->x);
    }
    nn_cpu_epilogue ep = bn_epilogue(C, &lz->policy_bn, NN_ACT_RELU, NULL);
    conv(C, &lz->policy_conv, n, height, width, C->x, NULL, &ep, L->a);
    /* the fully connected layer reads Leela Zero's plane-major order */
    nn_cpu_transpose(n, NN_LZ_POINTS, NN_LZ_POLICY_CHANNELS, L->a, L->t);
    nn_cpu_matmul_batch(&lz->policy_fc, n, L->t, b->policy);
    nn_cpu_epilogue ev = bn_epilogue(C, &lz->value_bn, NN_ACT_RELU, NULL);
    conv(C, &lz->value_conv, n, height, width, C->x, NULL, &ev, L->g);
    nn_cpu_matmul_batch(&lz->value_fc1, n, L->g, C->hidden);
    activate_all(NN_ACT_RELU, (size_t)n * NN_LZ_VALUE_HIDDEN, C->hidden);
    nn_cpu_matmul_batch(&lz->value_fc2, n, C->hidden, b->value);
}

static bool cpu_forward(void *ctx, const nn_backend_batch *b, char *err, int err_len)
{
    cpu_ctx *C = ctx;
    unsigned fp_state = nn_cpu_denormals_off();
    if (C->w->d->family == NN_FAMILY_DISC)
        nn_train_ws_forward(C->w->d->disc, C->disc, b->n, b->spatial, b->value);
    else if (C->w->d->family == NN_FAMILY_KATA)
        kata_forward(C, C->w->d->kata, b);
    else
        lz_forward(C, C->w->d->lz, b);
    nn_cpu_denormals_restore(fp_state);
    return true;
}

const nn_backend_ops nn_cpu_backend = {
    .name = "cpu",
    .load = cpu_load,
    .free = cpu_free,
    .context_new = cpu_context_new,
    .context_free = cpu_context_free,
    .forward = cpu_forward,
};
