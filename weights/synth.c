/* weights/synth.c -- synthetic networks of standard shapes (see synth.h). */
#include "weights/synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights/desc_kata.h"
#include "weights/desc_lz.h"

/* Random numbers and the first allocation failure of one build. */
typedef struct synth {
    unsigned long long rng;
    bool oom;
} synth;

/* Uniform in [-1, 1). */
static float rnd(synth *S)
{
    S->rng = S->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((double)(S->rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* n floats uniform in [center - spread, center + spread), or NULL (and S->oom) */
static float *floats(synth *S, size_t n, float center, float spread)
{
    float *x = malloc(sizeof *x * (n ? n : 1));
    if (!x) {
        S->oom = true;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = center + spread * rnd(S);
    return x;
}

/* gain scales the fan-in-normalised weights: below 1 on the convolution closing a residual
 * block keeps the trunk from growing block after block. */
static void conv(synth *S, nn_conv_desc *c, const char *name, int k, int c_in, int c_out,
                 float gain)
{
    snprintf(c->name, sizeof c->name, "%.*s", NN_NAME_LEN - 1, name);
    c->ky = c->kx = k;
    c->c_in = c_in;
    c->c_out = c_out;
    c->dil_y = c->dil_x = 1;
    c->w = floats(S, (size_t)c_out * c_in * k * k, 0.0f, gain * sqrtf(3.0f / (float)(c_in * k * k)));
    c->bias = NULL;
}

static void bn(synth *S, nn_bn_desc *b, const char *name, int c, bool affine)
{
    snprintf(b->name, sizeof b->name, "%.*s", NN_NAME_LEN - 1, name);
    b->c = c;
    b->eps = 1e-5f;
    b->mean = floats(S, (size_t)c, 0.0f, 0.2f);
    b->var = floats(S, (size_t)c, 1.0f, 0.5f);
    b->scale = affine ? floats(S, (size_t)c, 1.0f, 0.2f) : NULL;
    b->bias = affine ? floats(S, (size_t)c, 0.0f, 0.2f) : NULL;
}

static void matmul(synth *S, nn_matmul_desc *m, const char *name, int c_in, int c_out, bool bias)
{
    snprintf(m->name, sizeof m->name, "%.*s", NN_NAME_LEN - 1, name);
    m->c_in = c_in;
    m->c_out = c_out;
    m->w = floats(S, (size_t)c_in * c_out, 0.0f, sqrtf(3.0f / (float)c_in));
    m->bias = bias ? floats(S, (size_t)c_out, 0.0f, 0.1f) : NULL;
}

static nn_desc *new_desc(nn_family family, const char *source)
{
    nn_desc *d = calloc(1, sizeof *d);
    if (d) {
        d->family = family;
        snprintf(d->source, sizeof d->source, "%s", source);
    }
    return d;
}

nn_desc *weights_synth_lz(int blocks, int filters, unsigned seed)
{
    char source[64], name[NN_NAME_LEN];
    snprintf(source, sizeof source, "synthetic lz-b%dc%d", blocks, filters);
    nn_desc *d = new_desc(NN_FAMILY_LZ, source);
    struct nn_lz_desc *lz = d ? calloc(1, sizeof *lz) : NULL;
    if (!lz) {
        free(d);
        return NULL;
    }
    d->lz = lz;
    synth S = {seed + 1ULL, false};
    lz->version = 1;
    lz->blocks = blocks;
    lz->filters = filters;
    lz->block = calloc((size_t)(blocks ? blocks : 1), sizeof *lz->block);
    S.oom |= lz->block == NULL;
    conv(&S, &lz->input_conv, "input", 3, NN_LZ_INPUT_PLANES, filters, 1.0f);
    bn(&S, &lz->input_bn, "input bn", filters, false);
    for (int i = 0; lz->block && i < blocks; i++) {
        snprintf(name, sizeof name, "block %d conv1", i);
        conv(&S, &lz->block[i].conv1, name, 3, filters, filters, 1.0f);
        bn(&S, &lz->block[i].bn1, name, filters, false);
        snprintf(name, sizeof name, "block %d conv2", i);
        conv(&S, &lz->block[i].conv2, name, 3, filters, filters, 0.3f);
        bn(&S, &lz->block[i].bn2, name, filters, false);
    }
    conv(&S, &lz->policy_conv, "policy", 1, filters, NN_LZ_POLICY_CHANNELS, 1.0f);
    bn(&S, &lz->policy_bn, "policy bn", NN_LZ_POLICY_CHANNELS, false);
    matmul(&S, &lz->policy_fc, "policy fc", NN_LZ_POLICY_CHANNELS * NN_LZ_POINTS,
           NN_LZ_POLICY_OUTPUTS, true);
    conv(&S, &lz->value_conv, "value", 1, filters, NN_LZ_VALUE_CHANNELS, 1.0f);
    bn(&S, &lz->value_bn, "value bn", NN_LZ_VALUE_CHANNELS, false);
    matmul(&S, &lz->value_fc1, "value fc1", NN_LZ_VALUE_CHANNELS * NN_LZ_POINTS,
           NN_LZ_VALUE_HIDDEN, true);
    matmul(&S, &lz->value_fc2, "value fc2", NN_LZ_VALUE_HIDDEN, 1, true);
    if (S.oom) {
        nn_desc_free(d);
        return NULL;
    }
    return d;
}

/* An ordinary (gpool == false) or gpool block on `c` channels with inner width `mid` (gpool
 * blocks: mid - gpool regular channels beside `gpool` pooled ones). */
static void kata_block(synth *S, nn_kata_block *b, const char *name, bool gpool, int c, int mid,
                       int regular, int gpool_c, nn_activation act)
{
    char n[NN_NAME_LEN + 32];   /* a parent name plus a suffix */
    snprintf(b->name, sizeof b->name, "%.*s", NN_NAME_LEN - 1, name);
    b->kind = gpool ? NN_KATA_BLOCK_GPOOL : NN_KATA_BLOCK_ORDINARY;
    b->act1 = b->act2 = b->gpool_act = act;
    int inner = gpool ? regular : mid;
    snprintf(n, sizeof n, "%s/norm1", name);
    bn(S, &b->bn1, n, c, true);
    snprintf(n, sizeof n, "%s/conv1", name);
    conv(S, &b->conv1, n, 3, c, inner, 1.0f);
    if (gpool) {
        snprintf(n, sizeof n, "%s/gpool", name);
        conv(S, &b->gpool_conv, n, 3, c, gpool_c, 1.0f);
        bn(S, &b->gpool_bn, n, gpool_c, true);
        matmul(S, &b->gpool_to_bias, n, 3 * gpool_c, inner, false);
    }
    snprintf(n, sizeof n, "%s/norm2", name);
    bn(S, &b->bn2, n, inner, true);
    snprintf(n, sizeof n, "%s/conv2", name);
    conv(S, &b->conv2, n, 3, inner, c, 0.3f);
}

static void rms(synth *S, nn_kata_rms_norm *r, const char *name, int c)
{
    snprintf(r->name, sizeof r->name, "%.*s", NN_NAME_LEN - 1, name);
    r->c = c;
    r->eps = 1e-6f;
    r->weight = floats(S, (size_t)c, 1.0f, 0.2f);
}

/* Attention (even i) or feed-forward (odd i) on c channels, KaTrain's net's kinds. */
static void kata_transformer(synth *S, nn_kata_block *b, const char *name, int i, int c,
                             const weights_synth_kata_shape *s)
{
    char n[NN_NAME_LEN + 32];
    snprintf(b->name, sizeof b->name, "%.*s", NN_NAME_LEN - 1, name);
    snprintf(n, sizeof n, "%.*s/norm", NN_NAME_LEN - 1, name);
    if (i % 2) {
        b->kind = NN_KATA_BLOCK_FFN;
        nn_kata_ffn *f = &b->ffn;
        f->c = c;
        f->ffn_c = s->ffn;
        f->swiglu = true;
        rms(S, &f->norm, n, c);
        matmul(S, &f->linear1, n, c, s->ffn, false);
        matmul(S, &f->gate, n, c, s->ffn, false);
        matmul(S, &f->linear2, n, s->ffn, c, false);
        for (int j = 0; f->linear2.w && j < s->ffn * c; j++)
            f->linear2.w[j] *= 0.3f;   /* as a residual block's closing convolution */
        return;
    }
    b->kind = NN_KATA_BLOCK_ATTENTION;
    nn_kata_attention *a = &b->attn;
    a->heads = a->kv_heads = s->heads;
    a->q_dim = a->v_dim = c / s->heads;
    a->rope = a->learnable_rope = true;
    int width = s->heads * a->q_dim;
    rms(S, &a->norm, n, c);
    matmul(S, &a->q, n, c, width, false);
    matmul(S, &a->k, n, c, width, false);
    matmul(S, &a->v, n, c, width, false);
    matmul(S, &a->out, n, width, c, false);
    for (int j = 0; a->out.w && j < width * c; j++)
        a->out.w[j] *= 0.3f;
    a->rope_freqs = floats(S, (size_t)s->heads * a->q_dim, 0.0f, 1.0f);
}

static void kata_nested(synth *S, nn_kata_block *b, const char *name, bool gpool,
                        const weights_synth_kata_shape *s)
{
    char n[NN_NAME_LEN + 32];   /* a parent name plus a suffix */
    snprintf(b->name, sizeof b->name, "%.*s", NN_NAME_LEN - 1, name);
    b->kind = NN_KATA_BLOCK_NESTED;
    b->act1 = b->act2 = s->act;
    snprintf(n, sizeof n, "%s/normp", name);
    bn(S, &b->bn1, n, s->trunk, true);
    snprintf(n, sizeof n, "%s/convp", name);
    conv(S, &b->conv1, n, 1, s->trunk, s->mid, 1.0f);
    b->num_inner = s->heads > 0 ? 4 : 2;
    b->inner = calloc((size_t)b->num_inner, sizeof *b->inner);
    if (!b->inner) {
        S->oom = true;
        b->num_inner = 0;
    }
    for (int i = 0; i < b->num_inner; i++) {
        snprintf(n, sizeof n, "%s/inner%d", name, i);
        if (s->heads > 0)
            kata_transformer(S, &b->inner[i], n, i, s->mid, s);
        else
            kata_block(S, &b->inner[i], n, gpool && i == 0, s->mid, s->mid, s->mid - s->gpool,
                       s->gpool, s->act);
    }
    snprintf(n, sizeof n, "%s/normq", name);
    bn(S, &b->bn2, n, s->mid, true);
    snprintf(n, sizeof n, "%s/convq", name);
    conv(S, &b->conv2, n, 1, s->mid, s->trunk, 0.3f);
}

nn_desc *weights_synth_kata(const weights_synth_kata_shape *s, unsigned seed)
{
    char source[96], name[NN_NAME_LEN];
    snprintf(source, sizeof source, "synthetic kata-b%dc%d%s%s v%d", s->blocks, s->trunk,
             s->nested ? "nbt" : "", s->heads > 0 ? "tf" : "", s->version);
    nn_desc *d = new_desc(NN_FAMILY_KATA, source);
    nn_kata_desc *k = d ? calloc(1, sizeof *k) : NULL;
    if (!k) {
        free(d);
        return NULL;
    }
    d->kata = k;
    synth S = {seed + 7ULL, false};
    snprintf(k->name, sizeof k->name, "%s", source);
    k->version = s->version;
    k->inputs_version = 7;
    k->num_spatial = 22;
    k->num_global = 19;
    k->score_channels = s->version >= 9 ? 6 : 4;
    k->post = (nn_kata_postprocess){20, 20, 20, 20, 40, 0.25, s->version >= 15 ? 150 : 30};
    nn_kata_trunk *t = &k->trunk;
    snprintf(t->name, sizeof t->name, "trunk");
    t->num_blocks = s->blocks;
    t->trunk_channels = s->trunk;
    t->mid_channels = s->mid;
    t->regular_channels = s->regular;
    t->gpool_channels = s->gpool;
    conv(&S, &t->initial_conv, "initial", s->initial_kernel, k->num_spatial, s->trunk, 1.0f);
    matmul(&S, &t->initial_matmul, "initial global", k->num_global, s->trunk, false);
    t->blocks = calloc((size_t)(s->blocks ? s->blocks : 1), sizeof *t->blocks);
    S.oom |= t->blocks == NULL;
    for (int i = 0; t->blocks && i < s->blocks; i++) {
        bool gpool = s->gpool_every > 0 && i % s->gpool_every == s->gpool_every - 1;
        snprintf(name, sizeof name, "block%d", i);
        if (s->nested)
            kata_nested(&S, &t->blocks[i], name, gpool, s);
        else
            kata_block(&S, &t->blocks[i], name, gpool, s->trunk, s->mid, s->regular, s->gpool,
                       s->act);
    }
    if (s->heads > 0) {
        nn_kata_tip_rms *r = &t->tip_rms;
        t->norm_kind = 1;
        snprintf(r->name, sizeof r->name, "trunk/rms");
        r->c = s->trunk;
        r->eps = 1e-6f;
        r->spatial = true;
        r->gamma = floats(&S, (size_t)s->trunk, 1.0f, 0.2f);
        r->beta = floats(&S, (size_t)s->trunk, 0.0f, 0.2f);
    } else {
        bn(&S, &t->tip_bn, "trunk/norm", s->trunk, true);
    }
    t->tip_act = s->act;

    nn_kata_policy_head *p = &k->policy;
    snprintf(p->name, sizeof p->name, "policy");
    p->out_channels = s->version == 16 ? 4 : s->version >= 12 ? 2 : 1;
    conv(&S, &p->p1_conv, "p1", 1, s->trunk, s->p1, 1.0f);
    conv(&S, &p->g1_conv, "g1", 1, s->trunk, s->g1, 1.0f);
    bn(&S, &p->g1_bn, "g1/norm", s->g1, true);
    p->g1_act = p->p1_act = p->pass_act = s->act;
    matmul(&S, &p->gpool_to_bias, "gpool to bias", 3 * s->g1, s->p1, false);
    bn(&S, &p->p1_bn, "p1/norm", s->p1, true);
    conv(&S, &p->p2_conv, "p2", 1, s->p1, p->out_channels, 1.0f);
    p->has_pass2 = s->version >= 15;
    if (p->has_pass2) {
        matmul(&S, &p->gpool_to_pass, "pass", 3 * s->g1, s->p1, true);
        matmul(&S, &p->gpool_to_pass2, "pass2", s->p1, p->out_channels, false);
    } else {
        matmul(&S, &p->gpool_to_pass, "pass", 3 * s->g1, p->out_channels, false);
    }

    nn_kata_value_head *v = &k->value;
    snprintf(v->name, sizeof v->name, "value");
    conv(&S, &v->v1_conv, "v1", 1, s->trunk, s->v1, 1.0f);
    bn(&S, &v->v1_bn, "v1/norm", s->v1, true);
    v->v1_act = v->v2_act = s->act;
    matmul(&S, &v->v2, "v2", 3 * s->v1, s->v2, true);
    matmul(&S, &v->v3, "v3", s->v2, 3, true);
    matmul(&S, &v->sv3, "sv3", s->v2, k->score_channels, true);
    conv(&S, &v->ownership_conv, "ownership", 1, s->v1, 1, 1.0f);
    if (S.oom) {
        nn_desc_free(d);
        return NULL;
    }
    return d;
}

bool weights_synth_kata_add_meta(nn_desc *d, int hidden, unsigned seed)
{
    if (!d || d->family != NN_FAMILY_KATA || d->kata->version < 15 || hidden < 1 ||
        d->kata->meta_encoder_version)
        return false;
    nn_kata_desc *k = d->kata;
    nn_kata_meta_encoder *m = &k->meta;
    synth S = {seed + 11ULL, false};
    snprintf(m->name, sizeof m->name, "metadata encoder");
    m->num_inputs = NN_KATA_META_INPUTS;
    /* the first layer sees sparse 0/1 features: a larger spread keeps the bias it makes
     * comparable with the trunk's own activations */
    matmul(&S, &m->mul1, "meta/mul1", NN_KATA_META_INPUTS, hidden, true);
    matmul(&S, &m->mul2, "meta/mul2", hidden, hidden, true);
    matmul(&S, &m->mul3, "meta/mul3", hidden, k->trunk.trunk_channels, false);
    for (int i = 0; m->mul1.w && i < NN_KATA_META_INPUTS * hidden; i++)
        m->mul1.w[i] *= 2.0f;
    m->act1 = m->act2 = NN_ACT_MISH;
    if (S.oom)
        return false; /* what was made is freed with d */
    k->meta_encoder_version = 1;
    return true;
}

static const weights_synth_net standard[] = {
    {"synthetic lz-b10c128", true, 10, 128, {0}},
    {"synthetic lz-b40c256", true, 40, 256, {0}},
    {"synthetic kata-b6c96 (v8)", false, 0, 0,
     {8, false, 6, 96, 96, 64, 32, 3, 5, 32, 32, 32, 64, NN_ACT_RELU, 0, 0}},
    {"synthetic kata-b18c384nbt (v15)", false, 0, 0,
     {15, true, 18, 384, 192, 128, 64, 3, 3, 48, 48, 96, 128, NN_ACT_MISH, 0, 0}},
    {"synthetic kata-b28c512nbt (v15)", false, 0, 0,
     {15, true, 28, 512, 256, 192, 64, 3, 3, 64, 64, 128, 144, NN_ACT_MISH, 0, 0}},
    {"synthetic kata-b10c384h6nbttf (v15)", false, 0, 0,
     {15, true, 10, 384, 192, 144, 48, 0, 3, 48, 48, 96, 96, NN_ACT_SILU, 6, 512}},
};

const weights_synth_net *weights_synth_standard(int *n)
{
    *n = (int)(sizeof standard / sizeof standard[0]);
    return standard;
}

nn_desc *weights_synth_make(const weights_synth_net *s, unsigned seed)
{
    return s->lz ? weights_synth_lz(s->lz_blocks, s->lz_filters, seed)
                 : weights_synth_kata(&s->kata, seed);
}
