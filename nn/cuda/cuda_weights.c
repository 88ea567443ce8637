/* nn/cuda/cuda_weights.c -- the description's weights converted once for the device (layouts in
 * cuda_internal.h): batch norms folded into scale and bias in double, convolution filters
 * reordered to [c_out][k][k][c_in] and converted to the activation type, and in conv=igemm mode
 * also prepared for the implicit-GEMM kernel; with fuse=1, convolutions always followed by a
 * batch norm and ReLU also get a copy with the norm's scale folded in. The bias that KataGo's
 * gpool branches add between a convolution and the batch norm after it enters the epilogue
 * after the scale, so the matmul making it has its columns multiplied by that scale here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda_internal.h"
#include "nn/cuda/kernels/kernels.h"

typedef struct loader {
    cuda_weights *W;
    char *err;
    int err_len;
    bool failed;              /* the first failure wrote err; everything after it is skipped */
} loader;

static void fail(loader *L, const char *layer, const char *why)
{
    if (!L->failed)
        snprintf(L->err, (size_t)L->err_len, "%s: cuda backend: %s: %s", L->W->d->source, layer,
                 why);
    L->failed = true;
}

static void fail_cuda(loader *L, const char *layer, const char *call, cudaError_t e)
{
    char why[256];
    snprintf(why, sizeof why, "%s failed: %s", call, cudaGetErrorString(e));
    cudaGetLastError(); /* an allocation failure is not sticky; leave no error behind */
    fail(L, layer, why);
}

static void *dev_alloc(loader *L, const char *layer, size_t bytes)
{
    if (L->failed)
        return NULL;
    cuda_weights *W = L->W;
    if (W->num_allocs == W->cap_allocs) {
        int cap = W->cap_allocs ? 2 * W->cap_allocs : 256;
        void **grown = realloc(W->allocs, sizeof *grown * (size_t)cap);
        if (!grown) {
            fail(L, layer, "out of host memory");
            return NULL;
        }
        W->allocs = grown;
        W->cap_allocs = cap;
    }
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        char why[160];
        snprintf(why, sizeof why, "out of device memory for %zu bytes of weights (%s)", bytes,
                 cudaGetErrorString(e));
        cudaGetLastError();
        fail(L, layer, why);
        return NULL;
    }
    W->allocs[W->num_allocs++] = p;
    return p;
}

static float *dev_floats(loader *L, const char *layer, const float *host, size_t count)
{
    float *p = dev_alloc(L, layer, sizeof *p * count);
    if (p) {
        cudaError_t e = cudaMemcpy(p, host, sizeof *p * count, cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            fail_cuda(L, layer, "cudaMemcpy", e);
    }
    return L->failed ? NULL : p;
}

/* host floats -> device memory of the activation type */
static void *dev_activation_type(loader *L, const char *layer, const float *host, size_t count)
{
    if (!L->W->fp16)
        return dev_floats(L, layer, host, count);
    void *half = dev_alloc(L, layer, 2 * count);
    float *tmp = NULL;
    cudaError_t e = half ? cudaMalloc((void **)&tmp, sizeof *tmp * count) : cudaSuccess;
    if (e != cudaSuccess) {
        fail_cuda(L, layer, "cudaMalloc (conversion scratch)", e);
        return NULL;
    }
    if (!half)
        return NULL;
    if ((e = cudaMemcpy(tmp, host, sizeof *tmp * count, cudaMemcpyHostToDevice)) != cudaSuccess)
        fail_cuda(L, layer, "cudaMemcpy", e);
    else if ((e = (cudaError_t)nn_cuda_f32_to_f16((long)count, tmp, half, NULL)) != cudaSuccess)
        fail_cuda(L, layer, "nn_cuda_f32_to_f16", e);
    else if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        fail_cuda(L, layer, "cudaDeviceSynchronize", e);
    cudaFree(tmp);
    return L->failed ? NULL : half;
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* The folded batch norm y = x * scale + bias in double, into host arrays of b->c. */
static void bn_fold(const nn_bn_desc *b, double *scale, double *bias)
{
    for (int ch = 0; ch < b->c; ch++) {
        double s = (b->scale ? b->scale[ch] : 1.0) / sqrt((double)b->var[ch] + (double)b->eps);
        scale[ch] = s;
        bias[ch] = (b->bias ? b->bias[ch] : 0.0) - (double)b->mean[ch] * s;
    }
}

/* The fused copy of a convolution's filter krsc (see cuda_conv.w_fused): each output
 * channel's row times the folded scale of the norm bn, and bn's folded bias in half and float. */
static void prep_fused(loader *L, cuda_conv *out, const float *krsc, size_t row,
                       const nn_bn_desc *bn, const cuda_bn *dev_bn)
{
    if (L->failed)
        return;
    if (bn->c != out->c_out) {
        fail(L, bn->name, "channels differ from the convolution's before it");
        return;
    }
    size_t count = row * (size_t)out->c_out;
    float *w = malloc(sizeof *w * count), *bias = malloc(sizeof *bias * (size_t)out->c_out);
    double *s = malloc(sizeof *s * 2 * (size_t)out->c_out);
    if (!w || !bias || !s) {
        fail(L, out->name, "out of host memory");
    } else {
        bn_fold(bn, s, s + out->c_out);
        for (size_t i = 0; i < count; i++)
            w[i] = (float)(krsc[i] * s[i / row]);
        for (int o = 0; o < out->c_out; o++)
            bias[o] = (float)s[out->c_out + o];
        out->w_fused = dev_activation_type(L, out->name, w, count);
        out->bias_fused_h = dev_activation_type(L, out->name, bias, (size_t)out->c_out);
        out->bias_fused_f = dev_floats(L, out->name, bias, (size_t)out->c_out);
        out->fused_bn = dev_bn;
    }
    free(w);
    free(bias);
    free(s);
}

/* Converts c; where fuse_bn is not NULL (a batch norm and ReLU follow the convolution in every
 * use) and fuse=1 applies (fp16, cuDNN, k > 1), also its fused copy for dev_bn, the device
 * form of fuse_bn. */
static void prep_conv_fused(loader *L, cuda_conv *out, const nn_conv_desc *c, int c_in_pad,
                            const nn_bn_desc *fuse_bn, const cuda_bn *dev_bn)
{
    cuda_weights *W = L->W;
    int k = c->ky;
    *out = (cuda_conv){.name = c->name, .k = k, .dil = c->dil_y, .c_in = c_in_pad,
                       .c_out = c->c_out};
    if (L->failed)
        return;
    if (c->kx != k || k % 2 == 0 || c->dil_x != c->dil_y || c->dil_y < 1) {
        fail(L, c->name, "only square odd kernels with equal dilations are supported");
        return;
    }
    if (c->bias) {
        /* both loaders fold convolution biases into the batch norm after them */
        fail(L, c->name, "convolution bias not supported by cuda");
        return;
    }
    W->max_c = max_int(W->max_c, max_int(c_in_pad, c->c_out));
    size_t kk = (size_t)k * k, count = (size_t)c->c_out * kk * c_in_pad;
    float *krsc = calloc(count, sizeof *krsc), *oihw = calloc(count, sizeof *oihw);
    if (!krsc || !oihw) {
        fail(L, c->name, "out of host memory");
    } else {
        for (int o = 0; o < c->c_out; o++)
            for (int i = 0; i < c->c_in; i++)
                for (size_t p = 0; p < kk; p++) {
                    float v = c->w[((size_t)o * c->c_in + i) * kk + p];
                    krsc[((size_t)o * kk + p) * c_in_pad + i] = v;
                    oihw[((size_t)o * c_in_pad + i) * kk + p] = v;
                }
        out->w = dev_activation_type(L, c->name, krsc, count);
        if (W->fp16 && W->opt.conv == NN_CUDA_CONV_IGEMM && (k == 1 || k == 3) && out->dil == 1 &&
            nn_cuda_conv_igemm_supported(k, c_in_pad, c->c_out, CUDA_MAX_SIZE, CUDA_MAX_SIZE)) {
            out->w_igemm =
                dev_alloc(L, c->name, nn_cuda_conv_igemm_weight_bytes(k, c_in_pad, c->c_out));
            char why[256] = "";
            if (out->w_igemm && !nn_cuda_conv_igemm_prepare_f16(oihw, k, c_in_pad, c->c_out,
                                                                 out->w_igemm, why,
                                                                 (int)sizeof why))
                fail(L, c->name, why);
        }
    }
    if (fuse_bn && W->fp16 && W->opt.fuse && W->opt.conv == NN_CUDA_CONV_CUDNN && k > 1 && krsc)
        prep_fused(L, out, krsc, kk * (size_t)c_in_pad, fuse_bn, dev_bn);
    free(krsc);
    free(oihw);
}

static void prep_conv(loader *L, cuda_conv *out, const nn_conv_desc *c, int c_in_pad)
{
    prep_conv_fused(L, out, c, c_in_pad, NULL, NULL);
}

static void prep_bn(loader *L, cuda_bn *out, const nn_bn_desc *b)
{
    out->c = b->c;
    if (L->failed)
        return;
    L->W->max_c = max_int(L->W->max_c, b->c);
    double *s = malloc(sizeof *s * (size_t)b->c * 2);
    float *f = malloc(sizeof *f * (size_t)b->c * 2);
    if (!s || !f) {
        fail(L, b->name, "out of host memory");
    } else {
        bn_fold(b, s, s + b->c);
        for (int i = 0; i < 2 * b->c; i++)
            f[i] = (float)s[i];
        out->scale = dev_floats(L, b->name, f, (size_t)b->c);
        out->bias = dev_floats(L, b->name, f + b->c, (size_t)b->c);
    }
    free(s);
    free(f);
}

/* m with its output columns multiplied by the folded scale of then_bn (NULL: unscaled). */
static void prep_matmul(loader *L, cuda_matmul *out, const nn_matmul_desc *m,
                        const nn_bn_desc *then_bn)
{
    *out = (cuda_matmul){.c_in = m->c_in, .c_out = m->c_out};
    if (L->failed)
        return;
    L->W->max_vec = max_int(L->W->max_vec, max_int(m->c_in, m->c_out));
    if (then_bn && then_bn->c != m->c_out) {
        fail(L, m->name, "output channels differ from the batch norm's it feeds");
        return;
    }
    size_t count = (size_t)m->c_in * m->c_out;
    float *w = malloc(sizeof *w * (count + (size_t)m->c_out));
    double *s = then_bn ? malloc(sizeof *s * (size_t)m->c_out * 2) : NULL;
    if (!w || (then_bn && !s)) {
        fail(L, m->name, "out of host memory");
    } else {
        if (s)
            bn_fold(then_bn, s, s + m->c_out);
        for (size_t i = 0; i < count; i++)
            w[i] = s ? (float)(m->w[i] * s[i % (size_t)m->c_out]) : m->w[i];
        float *bias = w + count;
        for (int o = 0; m->bias && o < m->c_out; o++)
            bias[o] = s ? (float)(m->bias[o] * s[o]) : m->bias[o];
        out->w = dev_floats(L, m->name, w, count);
        out->bias = m->bias ? dev_floats(L, m->name, bias, (size_t)m->c_out) : NULL;
    }
    free(w);
    free(s);
}

static int pad8(int c) { return (c + 7) / 8 * 8; }

/* The matmuls mats[0..num) of one input ([c_in][c_out] weights, no bias) side by side as one
 * 1x1 convolution: its output channels are the first matmul's columns, then the second's, and
 * so on. The transformer blocks' projections; named after mats[0]. */
static void prep_projection(loader *L, cuda_conv *out, const nn_matmul_desc *const *mats,
                            int num)
{
    nn_conv_desc c = {.ky = 1, .kx = 1, .c_in = mats[0]->c_in, .dil_y = 1, .dil_x = 1};
    for (int m = 0; m < num; m++) {
        if (mats[m]->c_in != c.c_in || mats[m]->bias) {
            fail(L, mats[m]->name, "a projection of another input or with a bias");
            return;
        }
        c.c_out += mats[m]->c_out;
    }
    snprintf(c.name, sizeof c.name, "%s", mats[0]->name);
    c.w = malloc(sizeof *c.w * (size_t)c.c_out * c.c_in);
    if (!c.w) {
        fail(L, mats[0]->name, "out of host memory");
        return;
    }
    for (int m = 0, o0 = 0; m < num; o0 += mats[m++]->c_out)
        for (int o = 0; o < mats[m]->c_out; o++)
            for (int i = 0; i < c.c_in; i++)
                c.w[(size_t)(o0 + o) * c.c_in + i] = mats[m]->w[(size_t)i * mats[m]->c_out + o];
    prep_conv(L, out, &c, c.c_in);
    out->name = mats[0]->name;
    free(c.w);
}

/* cos and sin of every rotary angle of an attention block at each point of a 19x19 tensor,
 * [tables][pairs][361] (nn_cuda_rope; weights/desc_kata.h's nn_kata_rope_fill). */
_Static_assert(CUDA_MAX_SIZE == NN_KATA_ROPE_SIDE, "the rotary tables' grid is the largest board");

static void prep_rope(loader *L, cuda_block *out, const nn_kata_attention *a)
{
    int tables = nn_kata_rope_tables(a);
    size_t len = (size_t)tables * (a->q_dim / 2) * CUDA_MAX_AREA;
    float *cs = malloc(sizeof *cs * 2 * len);
    if (!cs) {
        fail(L, a->q.name, "out of host memory");
        return;
    }
    nn_kata_rope_fill(a, cs, cs + len);
    out->rope_tables = tables;
    out->rope_cos = dev_floats(L, a->q.name, cs, len);
    out->rope_sin = dev_floats(L, a->q.name, cs + len, len);
    free(cs);
}

static void prep_norm(loader *L, cuda_block *out, const nn_kata_rms_norm *r)
{
    out->c = r->c;
    out->norm_eps = r->eps;
    out->norm_w = dev_floats(L, r->name, r->weight, (size_t)r->c);
}

/* An attention or feed-forward block (KataGo 1.17). */
static void prep_transformer(loader *L, cuda_block *out, const nn_kata_block *b)
{
    cuda_weights *W = L->W;
    if (b->kind == NN_KATA_BLOCK_ATTENTION) {
        const nn_kata_attention *a = &b->attn;
        if (a->kv_heads < 1 || a->heads % a->kv_heads || a->q_dim % 2 ||
            a->q.c_out != a->heads * a->q_dim || a->k.c_out != a->kv_heads * a->q_dim ||
            a->v.c_out != a->kv_heads * a->v_dim || a->out.c_in != a->heads * a->v_dim) {
            fail(L, a->q.name, "head shapes the projections do not match");
            return;
        }
        W->attention = true;
        prep_norm(L, out, &a->norm);
        out->heads = a->heads;
        out->kv_heads = a->kv_heads;
        out->q_dim = a->q_dim;
        out->v_dim = a->v_dim;
        const nn_matmul_desc *qkv[] = {&a->q, &a->k, &a->v}, *o[] = {&a->out};
        prep_projection(L, &out->in_proj, qkv, 3);
        out->qkv_c = out->in_proj.c_out;
        prep_projection(L, &out->out_proj, o, 1);
        if (a->rope)
            prep_rope(L, out, a);
        return;
    }
    const nn_kata_ffn *f = &b->ffn;
    if (!f->swiglu) {
        fail(L, f->linear1.name, "a feed-forward block without SwiGLU");
        return;
    }
    prep_norm(L, out, &f->norm);
    out->ffn_c = f->ffn_c;
    const nn_matmul_desc *in[] = {&f->linear1, &f->gate}, *o[] = {&f->linear2};
    prep_projection(L, &out->in_proj, in, 2);
    prep_projection(L, &out->out_proj, o, 1);
}

static void prep_block(loader *L, cuda_block *out, const nn_kata_block *b, int depth)
{
    cuda_weights *W = L->W;
    /* a nested block keeps its stream one level down, inner blocks or not */
    W->depth = max_int(W->depth, b->kind == NN_KATA_BLOCK_NESTED ? depth + 1 : depth);
    out->kind = b->kind;
    if (b->kind == NN_KATA_BLOCK_ATTENTION || b->kind == NN_KATA_BLOCK_FFN) {
        prep_transformer(L, out, b);
        return;
    }
    out->act1 = b->act1;
    out->act2 = b->act2;
    out->gpool_act = b->gpool_act;
    prep_bn(L, &out->bn1, &b->bn1);
    /* an ordinary block's first convolution is followed by bn2 and act2 alone */
    bool fuse = b->kind == NN_KATA_BLOCK_ORDINARY && b->act2 == NN_ACT_RELU;
    prep_conv_fused(L, &out->conv1, &b->conv1, b->conv1.c_in, fuse ? &b->bn2 : NULL, &out->bn2);
    if (b->kind == NN_KATA_BLOCK_GPOOL) {
        prep_conv(L, &out->gpool_conv, &b->gpool_conv, b->gpool_conv.c_in);
        prep_bn(L, &out->gpool_bn, &b->gpool_bn);
        prep_matmul(L, &out->gpool_to_bias, &b->gpool_to_bias, &b->bn2);
    }
    if (b->num_inner > 0 && !L->failed) {
        out->inner = calloc((size_t)b->num_inner, sizeof *out->inner);
        if (!out->inner)
            fail(L, b->name, "out of host memory");
        else
            out->num_inner = b->num_inner;
    }
    for (int i = 0; i < out->num_inner; i++)
        prep_block(L, &out->inner[i], &b->inner[i], depth + 1);
    prep_bn(L, &out->bn2, &b->bn2);
    prep_conv(L, &out->conv2, &b->conv2, b->conv2.c_in);
}

static void prep_kata(loader *L, const nn_kata_desc *k)
{
    cuda_weights *W = L->W;
    cuda_kata *K = &W->kata;
    const nn_kata_trunk *t = &k->trunk;
    W->num_spatial = k->num_spatial;
    W->num_global = k->num_global;
    prep_conv(L, &K->initial_conv, &t->initial_conv, pad8(k->num_spatial));
    prep_matmul(L, &K->initial_matmul, &t->initial_matmul, NULL);
    if (k->meta_encoder_version > 0) {
        const nn_kata_meta_encoder *m = &k->meta;
        K->has_meta = true;
        W->num_meta = m->num_inputs;
        prep_matmul(L, &K->meta1, &m->mul1, NULL);
        prep_matmul(L, &K->meta2, &m->mul2, NULL);
        prep_matmul(L, &K->meta3, &m->mul3, NULL);
        K->meta_act1 = m->act1;
        K->meta_act2 = m->act2;
    }
    if (t->num_blocks > 0 && !L->failed) {
        K->blocks = calloc((size_t)t->num_blocks, sizeof *K->blocks);
        if (!K->blocks)
            fail(L, t->name, "out of host memory");
        else
            K->num_blocks = t->num_blocks;
    }
    for (int i = 0; i < K->num_blocks; i++)
        prep_block(L, &K->blocks[i], &t->blocks[i], 0);
    K->tip_act = t->tip_act;
    if (t->norm_kind == 1) {
        const nn_kata_tip_rms *r = &t->tip_rms;
        K->tip_rms = true;
        K->tip_spatial = r->spatial;
        K->tip_eps = r->eps;
        K->tip_gamma = dev_floats(L, r->name, r->gamma, (size_t)r->c);
        K->tip_beta = dev_floats(L, r->name, r->beta, (size_t)r->c);
        if (r->c != t->initial_conv.c_out)
            fail(L, r->name, "channels differ from the trunk's");
    } else {
        prep_bn(L, &K->tip_bn, &t->tip_bn);
    }

    const nn_kata_policy_head *p = &k->policy;
    K->policy_channels = p->out_channels;
    prep_conv(L, &K->p1_conv, &p->p1_conv, p->p1_conv.c_in);
    prep_conv(L, &K->g1_conv, &p->g1_conv, p->g1_conv.c_in);
    prep_bn(L, &K->g1_bn, &p->g1_bn);
    K->g1_act = p->g1_act;
    prep_matmul(L, &K->policy_to_bias, &p->gpool_to_bias, &p->p1_bn);
    prep_bn(L, &K->p1_bn, &p->p1_bn);
    K->p1_act = p->p1_act;
    prep_conv(L, &K->p2_conv, &p->p2_conv, p->p2_conv.c_in);
    prep_matmul(L, &K->to_pass, &p->gpool_to_pass, NULL);
    K->has_pass2 = p->has_pass2;
    K->pass_act = p->pass_act;
    if (p->has_pass2)
        prep_matmul(L, &K->to_pass2, &p->gpool_to_pass2, NULL);

    const nn_kata_value_head *v = &k->value;
    prep_conv(L, &K->v1_conv, &v->v1_conv, v->v1_conv.c_in);
    prep_bn(L, &K->v1_bn, &v->v1_bn);
    K->v1_act = v->v1_act;
    prep_matmul(L, &K->v2, &v->v2, NULL);
    K->v2_act = v->v2_act;
    prep_matmul(L, &K->v3, &v->v3, NULL);
    prep_matmul(L, &K->sv3, &v->sv3, NULL);
    prep_conv(L, &K->ownership_conv, &v->ownership_conv, v->ownership_conv.c_in);
    K->score_channels = k->score_channels;
}

static void prep_lz(loader *L, const struct nn_lz_desc *lz)
{
    cuda_weights *W = L->W;
    cuda_lz *Z = &W->lz;
    W->num_spatial = NN_LZ_INPUT_PLANES;
    prep_conv_fused(L, &Z->input_conv, &lz->input_conv, pad8(NN_LZ_INPUT_PLANES), &lz->input_bn,
                    &Z->input_bn);
    prep_bn(L, &Z->input_bn, &lz->input_bn);
    if (lz->blocks > 0 && !L->failed) {
        Z->block = calloc((size_t)lz->blocks, sizeof *Z->block);
        if (!Z->block)
            fail(L, "residual tower", "out of host memory");
        else
            Z->blocks = lz->blocks;
    }
    for (int i = 0; i < Z->blocks; i++) {
        cuda_lz_block *B = &Z->block[i];
        prep_conv_fused(L, &B->conv1, &lz->block[i].conv1, lz->block[i].conv1.c_in,
                        &lz->block[i].bn1, &B->bn1);
        prep_bn(L, &B->bn1, &lz->block[i].bn1);
        prep_conv_fused(L, &B->conv2, &lz->block[i].conv2, lz->block[i].conv2.c_in,
                        &lz->block[i].bn2, &B->bn2);
        prep_bn(L, &B->bn2, &lz->block[i].bn2);
    }
    prep_conv(L, &Z->policy_conv, &lz->policy_conv, lz->policy_conv.c_in);
    prep_bn(L, &Z->policy_bn, &lz->policy_bn);
    prep_matmul(L, &Z->policy_fc, &lz->policy_fc, NULL);
    prep_conv(L, &Z->value_conv, &lz->value_conv, lz->value_conv.c_in);
    prep_bn(L, &Z->value_bn, &lz->value_bn);
    prep_matmul(L, &Z->value_fc1, &lz->value_fc1, NULL);
    prep_matmul(L, &Z->value_fc2, &lz->value_fc2, NULL);
}

static void free_blocks(cuda_block *b, int count)
{
    for (int i = 0; b && i < count; i++)
        free_blocks(b[i].inner, b[i].num_inner);
    free(b);
}

void nn_cuda_weights_free(cuda_weights *W)
{
    if (!W)
        return;
    if (W->num_allocs > 0)
        cudaSetDevice(W->opt.device);   /* this thread may be on another device */
    for (int i = 0; i < W->num_allocs; i++)
        cudaFree(W->allocs[i]);
    free(W->allocs);
    nn_cuda_choices_free(W->choices);
    free_blocks(W->kata.blocks, W->kata.num_blocks);
    free(W->lz.block);
    free(W);
}

cuda_weights *nn_cuda_weights_load(const nn_desc *d, const nn_cuda_options *opt, char *err,
                                   int err_len)
{
    cuda_weights *W = calloc(1, sizeof *W);
    if (W && !(W->choices = nn_cuda_choices_new())) {
        free(W);
        W = NULL;
    }
    if (!W) {
        snprintf(err, (size_t)err_len, "%s: cuda backend: out of host memory", d->source);
        return NULL;
    }
    W->d = d;
    W->opt = *opt;
    loader L = {.W = W, .err = err, .err_len = err_len};
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    struct cudaDeviceProp prop;
    if (e != cudaSuccess || opt->device >= devices) {
        char why[160];
        snprintf(why, sizeof why, "device %d not present (%d device%s)", opt->device,
                 e == cudaSuccess ? devices : 0, devices == 1 ? "" : "s");
        cudaGetLastError();
        fail(&L, "options", why);
    } else if ((e = cudaSetDevice(opt->device)) != cudaSuccess) {
        fail_cuda(&L, "options", "cudaSetDevice", e);
    } else if ((e = cudaGetDeviceProperties(&prop, opt->device)) != cudaSuccess) {
        fail_cuda(&L, "options", "cudaGetDeviceProperties", e);
    } else if (opt->precision == NN_CUDA_PRECISION_AUTO) {
        /* tensor cores arrived with compute capability 7.0 */
        W->opt.precision = prop.major >= 7 ? NN_CUDA_PRECISION_FP16 : NN_CUDA_PRECISION_FP32;
    }
    W->fp16 = W->opt.precision == NN_CUDA_PRECISION_FP16;
    W->elt = W->fp16 ? 2 : 4;
    if (d->family == NN_FAMILY_KATA)
        prep_kata(&L, d->kata);
    else
        prep_lz(&L, d->lz);
    if (!L.failed && (e = cudaDeviceSynchronize()) != cudaSuccess)
        fail_cuda(&L, "weights", "cudaDeviceSynchronize", e);
    if (L.failed) {
        nn_cuda_weights_free(W);
        return NULL;
    }
    return W;
}
