/* nn/cuda/cuda_nets.c -- the KataGo and Leela Zero forward passes on the device, layer for layer
 * as nn/ref's (kata_forward.c, lz_forward.c), with every batch norm and activation fused into a
 * convolution epilogue.
 *
 * KataGo's pre-activation trunk: each nesting level holds its residual stream x and a =
 * act(bn(x)) for the next layer that reads it. A block's first convolution reads a, its
 * epilogue applies bn2 + act2; the block's last convolution adds into x and, as its second
 * output, writes the next block's act1(bn1(x)) into a (or, after the last block of a level, the
 * batch norm that follows the level: the tip's, or the nested block's bn2). A transformer block
 * (KataGo 1.17) reads x itself through its RMS norm, and an RMS-norm trunk tip is a kernel of
 * its own after the trunk, so nothing is written into a for those. */
#include "nn/cuda/cuda_internal.h"

/* The batch norm and activation that the next reader of a residual stream applies. */
typedef struct pre_act {
    const cuda_bn *bn;
    int act;
} pre_act;

static nn_cuda_epilogue bn_epilogue(const cuda_bn *bn, int act, const float *bias_nc)
{
    return (nn_cuda_epilogue){.scale = bn->scale, .bias = bn->bias, .bias_nc = bias_nc,
                              .act = act};
}

/* Residual stream out as is, and next's pre-activation of it into out2 (none when next reads
 * the stream itself: a transformer block, or an RMS-norm trunk tip). */
static nn_cuda_epilogue stream_epilogue(const void *residual, void *out2, pre_act next)
{
    if (!next.bn)
        return (nn_cuda_epilogue){.residual = residual, .act = NN_ACT_IDENTITY};
    return (nn_cuda_epilogue){.residual = residual, .act = NN_ACT_IDENTITY, .out2 = out2,
                              .scale2 = next.bn->scale, .bias2 = next.bn->bias,
                              .act2 = next.act};
}

static bool is_transformer(const cuda_block *b)
{
    return b->kind == NN_KATA_BLOCK_ATTENTION || b->kind == NN_KATA_BLOCK_FFN;
}

/* What block b reads of its level's stream: act1(bn1(x)), or x itself for a transformer block
 * (its RMS norm is its own first step). */
static pre_act pre_of(const cuda_block *b)
{
    return is_transformer(b) ? (pre_act){NULL, NN_ACT_IDENTITY} : (pre_act){&b->bn1, b->act1};
}

/* x += out_proj(f(in_proj(rms_norm(x)))) on level's stream: f the attention or SwiGLU, u in a,
 * the projections' products in t and g (the level's buffers are as wide as every projection). */
static bool run_transformer(cuda_ctx *C, int level, const cuda_block *b, pre_act next)
{
    cuda_level *L = &C->lv[level];
    nn_cuda_epilogue plain = {.act = NN_ACT_IDENTITY};
    nn_cuda_epilogue close = stream_epilogue(L->x, L->a, next);
    if (!nn_cuda_rms_norm(C, b, L->x, L->a) || !nn_cuda_conv(C, &b->in_proj, L->a, L->t, &plain))
        return false;
    bool ok = b->kind == NN_KATA_BLOCK_ATTENTION ? nn_cuda_attention(C, b, L->t, L->g)
                                                 : nn_cuda_swiglu(C, b->ffn_c, L->t, L->g);
    return ok && nn_cuda_conv(C, &b->out_proj, L->g, L->x, &close);
}

static bool run_level(cuda_ctx *C, int level, const cuda_block *blocks, int count, pre_act after);

static bool run_block(cuda_ctx *C, int level, const cuda_block *b, pre_act next)
{
    cuda_level *L = &C->lv[level];
    nn_cuda_epilogue close = stream_epilogue(L->x, L->a, next);
    switch (b->kind) {
    case NN_KATA_BLOCK_ORDINARY: {
        nn_cuda_epilogue e1 = bn_epilogue(&b->bn2, b->act2, NULL);
        return nn_cuda_conv(C, &b->conv1, L->a, L->t, &e1) &&
               nn_cuda_conv(C, &b->conv2, L->t, L->x, &close);
    }
    case NN_KATA_BLOCK_GPOOL: {
        nn_cuda_epilogue eg = bn_epilogue(&b->gpool_bn, b->gpool_act, NULL);
        nn_cuda_epilogue e1 = bn_epilogue(&b->bn2, b->act2, C->bias_nc);
        return nn_cuda_conv(C, &b->gpool_conv, L->a, L->g, &eg) &&
               nn_cuda_pool(C, b->gpool_conv.c_out, L->g, false, C->pooled) &&
               nn_cuda_matmul(C, &b->gpool_to_bias, C->pooled, C->bias_nc, NN_ACT_IDENTITY,
                              false) &&
               nn_cuda_conv(C, &b->conv1, L->a, L->t, &e1) &&
               nn_cuda_conv(C, &b->conv2, L->t, L->x, &close);
    }
    case NN_KATA_BLOCK_NESTED: {
        cuda_level *M = &C->lv[level + 1];
        pre_act inner_first =
            b->num_inner > 0 ? pre_of(&b->inner[0]) : (pre_act){&b->bn2, b->act2};
        nn_cuda_epilogue e1 = stream_epilogue(NULL, M->a, inner_first);
        return nn_cuda_conv(C, &b->conv1, L->a, M->x, &e1) &&
               run_level(C, level + 1, b->inner, b->num_inner, (pre_act){&b->bn2, b->act2}) &&
               nn_cuda_conv(C, &b->conv2, M->a, L->x, &close);
    }
    case NN_KATA_BLOCK_ATTENTION:
    case NN_KATA_BLOCK_FFN:
        return run_transformer(C, level, b, next);
    }
    return nn_cuda_fail(C, "run_block", "a block kind the cuda backend does not run", __FILE__,
                        __LINE__);
}

/* Runs blocks on level's stream; on entry its a holds blocks[0]'s pre-activation, on return
 * after's. */
static bool run_level(cuda_ctx *C, int level, const cuda_block *blocks, int count, pre_act after)
{
    for (int i = 0; i < count; i++) {
        pre_act next = i + 1 < count ? pre_of(&blocks[i + 1]) : after;
        if (!run_block(C, level, &blocks[i], next))
            return false;
    }
    return true;
}

/* The metadata encoder's trunk bias, added to C->bias_nc. */
static bool kata_meta(cuda_ctx *C, const cuda_kata *K, const float *meta)
{
    return nn_cuda_matmul(C, &K->meta1, meta, C->pooled, K->meta_act1, false) &&
           nn_cuda_matmul(C, &K->meta2, C->pooled, C->hidden, K->meta_act2, false) &&
           nn_cuda_matmul(C, &K->meta3, C->hidden, C->bias_nc, NN_ACT_IDENTITY, true);
}

static bool kata_policy(cuda_ctx *C, const cuda_kata *K)
{
    cuda_level *L = &C->lv[0];
    nn_cuda_epilogue eg = bn_epilogue(&K->g1_bn, K->g1_act, NULL);
    nn_cuda_epilogue ep = bn_epilogue(&K->p1_bn, K->p1_act, C->bias_nc);
    nn_cuda_epilogue plain = {.act = NN_ACT_IDENTITY};
    bool ok = nn_cuda_conv(C, &K->g1_conv, L->a, L->g, &eg) &&
              nn_cuda_pool(C, K->g1_conv.c_out, L->g, false, C->pooled) &&
              nn_cuda_matmul(C, &K->policy_to_bias, C->pooled, C->bias_nc, NN_ACT_IDENTITY,
                             false) &&
              nn_cuda_conv(C, &K->p1_conv, L->a, L->t, &ep) &&
              nn_cuda_conv(C, &K->p2_conv, L->t, L->x, &plain) &&
              nn_cuda_to_planes(C, K->policy_channels, L->x, C->out.policy);
    if (!ok)
        return false;
    if (!K->has_pass2)
        return nn_cuda_matmul(C, &K->to_pass, C->pooled, C->out.pass, NN_ACT_IDENTITY, false);
    return nn_cuda_matmul(C, &K->to_pass, C->pooled, C->hidden, K->pass_act, false) &&
           nn_cuda_matmul(C, &K->to_pass2, C->hidden, C->out.pass, NN_ACT_IDENTITY, false);
}

static bool kata_value(cuda_ctx *C, const cuda_kata *K)
{
    cuda_level *L = &C->lv[0];
    nn_cuda_epilogue ev = bn_epilogue(&K->v1_bn, K->v1_act, NULL);
    nn_cuda_epilogue plain = {.act = NN_ACT_IDENTITY};
    return nn_cuda_conv(C, &K->v1_conv, L->a, L->g, &ev) &&
           nn_cuda_pool(C, K->v1_conv.c_out, L->g, true, C->pooled) &&
           nn_cuda_matmul(C, &K->v2, C->pooled, C->hidden, K->v2_act, false) &&
           nn_cuda_matmul(C, &K->v3, C->hidden, C->out.value, NN_ACT_IDENTITY, false) &&
           nn_cuda_matmul(C, &K->sv3, C->hidden, C->out.score, NN_ACT_IDENTITY, false) &&
           nn_cuda_conv(C, &K->ownership_conv, L->g, L->x, &plain) &&
           nn_cuda_to_planes(C, 1, L->x, C->out.ownership);
}

bool nn_cuda_kata_forward(cuda_ctx *C, const float *spatial, const float *global,
                          const float *meta)
{
    const cuda_weights *W = C->W;
    const cuda_kata *K = &W->kata;
    cuda_level *L = &C->lv[0];
    pre_act tip = K->tip_rms ? (pre_act){NULL, NN_ACT_IDENTITY} : (pre_act){&K->tip_bn, K->tip_act};
    pre_act first = K->num_blocks > 0 ? pre_of(&K->blocks[0]) : tip;
    /* x = initial_conv(spatial) + initial_matmul(global) [+ the metadata encoder's bias] */
    nn_cuda_epilogue e0 = stream_epilogue(NULL, L->a, first);
    e0.bias_nc = C->bias_nc;
    bool ok = nn_cuda_from_planes(C, W->num_spatial, K->initial_conv.c_in, spatial, L->t) &&
              nn_cuda_matmul(C, &K->initial_matmul, global, C->bias_nc, NN_ACT_IDENTITY,
                             false) &&
              (!meta || kata_meta(C, K, meta)) &&
              nn_cuda_conv(C, &K->initial_conv, L->t, L->x, &e0) &&
              run_level(C, 0, K->blocks, K->num_blocks, tip) &&
              (!K->tip_rms || nn_cuda_tip_rms(C, K, K->initial_conv.c_out, L->x, L->a));
    /* L->a now holds the trunk's output for both heads */
    return ok && kata_policy(C, K) && kata_value(C, K);
}

bool nn_cuda_lz_forward(cuda_ctx *C, const float *spatial)
{
    const cuda_lz *Z = &C->W->lz;
    cuda_level *L = &C->lv[0];
    void *x = L->x, *y = L->a;
    nn_cuda_epilogue e0 = bn_epilogue(&Z->input_bn, NN_ACT_RELU, NULL);
    if (!nn_cuda_from_planes(C, NN_LZ_INPUT_PLANES, Z->input_conv.c_in, spatial, L->t) ||
        !nn_cuda_conv(C, &Z->input_conv, L->t, x, &e0))
        return false;
    for (int i = 0; i < Z->blocks; i++) {
        const cuda_lz_block *blk = &Z->block[i];
        nn_cuda_epilogue e1 = bn_epilogue(&blk->bn1, NN_ACT_RELU, NULL);
        nn_cuda_epilogue e2 = bn_epilogue(&blk->bn2, NN_ACT_RELU, NULL);
        e2.residual = x;  /* relu(bn2(conv2(t)) + x), into the other buffer */
        if (!nn_cuda_conv(C, &blk->conv1, x, L->t, &e1) ||
            !nn_cuda_conv(C, &blk->conv2, L->t, y, &e2))
            return false;
        void *swap = x;
        x = y;
        y = swap;
    }
    /* the fully connected layers read Leela Zero's plane-major order */
    nn_cuda_epilogue ep = bn_epilogue(&Z->policy_bn, NN_ACT_RELU, NULL);
    nn_cuda_epilogue ev = bn_epilogue(&Z->value_bn, NN_ACT_RELU, NULL);
    return nn_cuda_conv(C, &Z->policy_conv, x, L->g, &ep) &&
           nn_cuda_to_planes(C, NN_LZ_POLICY_CHANNELS, L->g, C->vec) &&
           nn_cuda_matmul(C, &Z->policy_fc, C->vec, C->out.policy, NN_ACT_IDENTITY, false) &&
           nn_cuda_conv(C, &Z->value_conv, x, L->g, &ev) &&
           nn_cuda_to_planes(C, NN_LZ_VALUE_CHANNELS, L->g, C->vec) &&
           nn_cuda_matmul(C, &Z->value_fc1, C->vec, C->hidden, NN_ACT_RELU, false) &&
           nn_cuda_matmul(C, &Z->value_fc2, C->hidden, C->out.value, NN_ACT_IDENTITY, false);
}
