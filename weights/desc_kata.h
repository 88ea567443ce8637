/* weights/desc_kata.h -- the KataGo family: a pre-activation residual trunk with global pooling and
 * nested bottleneck blocks, spatial + global inputs, a policy head with a pass output and a value
 * head with win/loss/no-result, score values and ownership. Model versions 3..15 (weights/kata.h
 * reads them; the reference nn/ref/kata_forward.c is the executable definition).
 *
 * What the layers compute, on an h x w board with a mask of its points (all 1 on a board the size
 * of the tensor, which is how nn/ref runs):
 *   trunk   x = initial_conv(spatial) + initial_matmul(global)        (broadcast per channel)
 *           per block (kinds below); then trunk = act(tip_bn(x)), masked
 *   blocks  ordinary:  x += conv2(act2(bn2(conv1(act1(bn1(x))))))
 *           gpool:     t = conv1(a) with a = act1(bn1(x)); g = gpool_act(gpool_bn(gpool_conv(a)));
 *                      t += gpool_to_bias(pool(g)) per channel; x += conv2(act2(bn2(t)))
 *           nested:    m = conv1(act1(bn1(x))) (trunk -> mid channels); the inner blocks run on m;
 *                      x += conv2(act2(bn2(m))) (mid -> trunk channels)
 *   pool    KataGo's global pooling of c channels into 3c values: the mean over the board, the
 *           mean * (sqrt(area) - 14) / 10, and the maximum over the board
 *   policy  p = p1_conv(trunk); g = g1_act(g1_bn(g1_conv(trunk))); p += gpool_to_bias(pool(g));
 *           logits = p2_conv(p1_act(p1_bn(p)))                          [out_channels x h x w]
 *           pass = gpool_to_pass(pool(g))                                 versions 3..14
 *           pass = gpool_to_pass2(pass_act(gpool_to_pass(pool(g))))      version 15 (has_pass2)
 *           out_channels = 2 from version 12: channel 0 the policy, channel 1 the optimistic one
 *   value   v = v1_act(v1_bn(v1_conv(trunk))); h = v2_act(v2(vpool(v)));
 *           value = v3(h) [win, loss, no result logits]; score = sv3(h) [score_channels];
 *           ownership = ownership_conv(v)                                 [1 x h x w]
 *           vpool is the mean, mean * (sqrt(area) - 14) / 10 and
 *           mean * ((sqrt(area) - 14)^2 / 100 - 0.1)
 * Every batch norm is followed by its activation and the board mask (points off the board 0).
 * All outputs are from the side to move's view; KataGo's post-processing (nn/ref/kata_forward.h)
 * turns them into white's probabilities, score values and ownership.
 *
 * Conventions fixed by the loader: convolutions and the first matmuls have no bias; KataGo's
 * separate "matbias" layers are folded into the matmul they follow (nn_matmul_desc.bias), so
 * v2, v3, sv3, version 15's gpool_to_pass and the metadata encoder's mul1/mul2 carry biases.
 * Layer names are the file's own (truncated to NN_NAME_LEN - 1 characters).
 */
#ifndef SHIDO_WEIGHTS_DESC_KATA_H
#define SHIDO_WEIGHTS_DESC_KATA_H

#include <stdbool.h>

#include "weights/desc.h"

#define NN_KATA_MIN_VERSION 3
#define NN_KATA_MAX_VERSION 15
#define NN_KATA_MAX_SPATIAL 22          /* spatial input channels of every supported version */
#define NN_KATA_MAX_GLOBAL 19           /* global input channels of every supported version */
#define NN_KATA_META_INPUTS 192         /* metadata encoder version 1 (human SL nets) */

typedef enum {
    NN_KATA_BLOCK_ORDINARY = 0,
    NN_KATA_BLOCK_GPOOL,
    NN_KATA_BLOCK_NESTED,
} nn_kata_block_kind;

/* One residual block. KataGo's pre-activation "norm-act-conv" pairs become (bn1, act1, conv1)
 * and (bn2, act2, conv2): preBN/regularConv and midBN/finalConv for ordinary and gpool blocks,
 * preBN/preConv and postBN/postConv for a nested bottleneck. */
typedef struct nn_kata_block {
    nn_kata_block_kind kind;
    char name[NN_NAME_LEN];
    nn_bn_desc bn1;
    nn_activation act1;
    nn_conv_desc conv1;
    /* NN_KATA_BLOCK_GPOOL: the pooled branch, added to conv1's output per channel */
    nn_conv_desc gpool_conv;
    nn_bn_desc gpool_bn;
    nn_activation gpool_act;
    nn_matmul_desc gpool_to_bias;       /* 3 * gpool channels -> conv1 out channels */
    /* NN_KATA_BLOCK_NESTED: blocks on conv1's out channels */
    int num_inner;
    struct nn_kata_block *inner;        /* [num_inner] */
    nn_bn_desc bn2;
    nn_activation act2;
    nn_conv_desc conv2;
} nn_kata_block;

typedef struct nn_kata_trunk {
    char name[NN_NAME_LEN];
    int num_blocks;
    int trunk_channels, mid_channels, regular_channels, gpool_channels;  /* as the file says */
    nn_conv_desc initial_conv;          /* spatial inputs -> trunk channels */
    nn_matmul_desc initial_matmul;      /* global inputs -> trunk channels */
    nn_kata_block *blocks;              /* [num_blocks] */
    nn_bn_desc tip_bn;
    nn_activation tip_act;
} nn_kata_trunk;

/* Version 15 metadata encoder of human SL nets: 192 SGF-metadata features -> a trunk bias.
 * The features come from a profile (nn_kata_profile in kata_inputs.h); every backend adds the
 * encoder's output to the trunk after the input convolution, as KataGo does. */
typedef struct nn_kata_meta_encoder {
    char name[NN_NAME_LEN];
    int num_inputs;
    nn_matmul_desc mul1;                /* with bias */
    nn_activation act1;
    nn_matmul_desc mul2;                /* with bias */
    nn_activation act2;
    nn_matmul_desc mul3;                /* -> trunk channels, no bias */
} nn_kata_meta_encoder;

typedef struct nn_kata_policy_head {
    char name[NN_NAME_LEN];
    int out_channels;                   /* 1, or 2 from version 12 (optimistic policy) */
    nn_conv_desc p1_conv, g1_conv;
    nn_bn_desc g1_bn;
    nn_activation g1_act;
    nn_matmul_desc gpool_to_bias;       /* 3 * g1 channels -> p1 channels */
    nn_bn_desc p1_bn;
    nn_activation p1_act;
    nn_conv_desc p2_conv;               /* p1 channels -> out_channels */
    nn_matmul_desc gpool_to_pass;       /* 3 * g1 channels -> out_channels, or -> p1 channels
                                           with bias when has_pass2 */
    bool has_pass2;                     /* version 15 */
    nn_activation pass_act;
    nn_matmul_desc gpool_to_pass2;      /* p1 channels -> out_channels */
} nn_kata_policy_head;

typedef struct nn_kata_value_head {
    char name[NN_NAME_LEN];
    nn_conv_desc v1_conv;
    nn_bn_desc v1_bn;
    nn_activation v1_act;
    nn_matmul_desc v2;                  /* 3 * v1 channels -> hidden, with bias */
    nn_activation v2_act;
    nn_matmul_desc v3;                  /* hidden -> 3 (win, loss, no result), with bias */
    nn_matmul_desc sv3;                 /* hidden -> score channels, with bias */
    nn_conv_desc ownership_conv;        /* v1 channels -> 1 */
} nn_kata_value_head;

/* KataGo's post-processing multipliers: read from the file from version 13, defaults before. */
typedef struct nn_kata_postprocess {
    double td_score, score_mean, score_stdev, lead, variance_time, shortterm_value_error,
        shortterm_score_error;
} nn_kata_postprocess;

typedef struct nn_kata_desc nn_kata_desc;

struct nn_kata_desc {
    char name[NN_NAME_LEN];
    int version;                        /* model version, NN_KATA_MIN_VERSION..MAX_VERSION */
    int inputs_version;                 /* KataGo's input features version, 3..7 */
    int num_spatial, num_global;        /* input channels */
    int score_channels;                 /* 1 (v3), 2 (v4..7), 4 (v8), 6 (v9 on) */
    nn_kata_postprocess post;
    int meta_encoder_version;           /* 0, or 1 with meta present (version 15) */
    nn_kata_meta_encoder meta;
    nn_kata_trunk trunk;
    nn_kata_policy_head policy;
    nn_kata_value_head value;
};

#endif
