/* weights/desc_kata.h -- the KataGo family: a pre-activation residual trunk with global pooling and
 * nested bottleneck blocks, spatial + global inputs, a policy head with a pass output and a value
 * head with win/loss/no-result, score values and ownership; from KataGo 1.17 also transformer
 * blocks (attention, feed-forward) and an RMS-norm trunk tip. Model versions 3..17
 * (weights/kata.h reads them; the reference nn/ref/kata_forward.c is the executable definition).
 *
 * What the layers compute, on an h x w board with a mask of its points (all 1 on a board the size
 * of the tensor, which is how nn/ref runs):
 *   trunk   x = initial_conv(spatial) + initial_matmul(global)        (broadcast per channel)
 *           per block (kinds below); then trunk = act(tip_bn(x)), masked, or with an RMS-norm
 *           trunk (norm kind 1) trunk = act(x / rms * gamma + beta), rms the root mean square
 *           of x over the channels of each point (spatial 0) or over the channels and every
 *           point on the board (spatial 1), plus eps under the root
 *   blocks  ordinary:  x += conv2(act2(bn2(conv1(act1(bn1(x))))))
 *           gpool:     t = conv1(a) with a = act1(bn1(x)); g = gpool_act(gpool_bn(gpool_conv(a)));
 *                      t += gpool_to_bias(pool(g)) per channel; x += conv2(act2(bn2(t)))
 *           nested:    m = conv1(act1(bn1(x))) (trunk -> mid channels); the inner blocks run on m;
 *                      x += conv2(act2(bn2(m))) (mid -> trunk channels)
 *           attention: per point u = rms_norm(x) (over channels, eps, weight); q, k, v = u . wq,
 *                      wk, wv split into heads; q and k rotated (RoPE: channel pairs (2p, 2p+1)
 *                      of each head turned by x * freq_x + y * freq_y, the learned frequencies of
 *                      the head's key/value head, or theta's fixed ones: the first half of the
 *                      pairs by y, the second by x); per head softmax(q k^T / sqrt(q_dim)) over
 *                      the points ON the board, times v; x += (heads . w_out) on the board
 *           ffn:       u = rms_norm(x); x += (silu(u . w1) * (u . w_gate)) . w2 on the board
 *                      (SwiGLU; the file format allows a block without the gate, which KataGo
 *                      1.17's Eigen backend refuses and the loader refuses too)
 *   pool    KataGo's global pooling of c channels into 3c values: the mean over the board, the
 *           mean * (sqrt(area) - 14) / 10, and the maximum over the board
 *   policy  p = p1_conv(trunk); g = g1_act(g1_bn(g1_conv(trunk))); p += gpool_to_bias(pool(g));
 *           logits = p2_conv(p1_act(p1_bn(p)))                          [out_channels x h x w]
 *           pass = gpool_to_pass(pool(g))                                 versions 3..14
 *           pass = gpool_to_pass2(pass_act(gpool_to_pass(pool(g))))      version 15 (has_pass2)
 *           out_channels = 2 from version 12: channel 0 the policy, channel 1 the optimistic one;
 *           4 in version 16 and where a version 17 file says so: channels 2 and 3 are the
 *           q-value predictions (win/loss and score of playing each move), KataGo reports them
 *           nowhere in kata-raw-nn
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
#define NN_KATA_MAX_VERSION 17
#define NN_KATA_MAX_SPATIAL 22          /* spatial input channels of every supported version */
#define NN_KATA_MAX_GLOBAL 19           /* global input channels of every supported version */
#define NN_KATA_META_INPUTS 192         /* metadata encoder version 1 (human SL nets) */

typedef enum {
    NN_KATA_BLOCK_ORDINARY = 0,
    NN_KATA_BLOCK_GPOOL,
    NN_KATA_BLOCK_NESTED,
    NN_KATA_BLOCK_ATTENTION,            /* transformer_attention_block (KataGo 1.17) */
    NN_KATA_BLOCK_FFN,                  /* transformer_ffn_block (KataGo 1.17) */
} nn_kata_block_kind;

/* RMS normalisation over the channels of each point, y = x / sqrt(mean(x^2) + eps) * weight:
 * the pre-norm of a transformer block. */
typedef struct nn_kata_rms_norm {
    char name[NN_NAME_LEN];
    int c;
    float eps;
    float *weight;                      /* [c] */
} nn_kata_rms_norm;

/* The trunk tip of an RMS-norm trunk: y = act(x / rms * gamma + beta), rms over the channels of
 * each point (spatial false) or over all channels and points on the board (spatial true). */
typedef struct nn_kata_tip_rms {
    char name[NN_NAME_LEN];
    int c;
    float eps;
    bool spatial;
    float *gamma, *beta;                /* [c] */
} nn_kata_tip_rms;

/* A multi-head self-attention block over the points of the board (formula at the top). Query
 * head h reads key/value head h / (heads / kv_heads). */
typedef struct nn_kata_attention {
    int heads, kv_heads, q_dim, v_dim;  /* q_dim: per head, of queries and keys */
    bool rope, learnable_rope;
    nn_kata_rms_norm norm;
    nn_matmul_desc q, k, v, out;        /* trunk -> heads*q_dim, kv_heads*q_dim, kv_heads*v_dim;
                                           heads*v_dim -> trunk */
    float *rope_freqs;                  /* learnable_rope: [kv_heads][q_dim / 2][2] (x, y) */
    float rope_theta;                   /* rope and not learnable_rope */
} nn_kata_attention;

/* The rotary encodings of attention block a (rope set) as tables of angles: tables of them
 * (kv_heads with learned frequencies, 1 with theta's; query head h of heads reads table
 * h * tables / heads, key/value head g table g * tables / kv_heads), each the cosines and sines
 * of every channel pair's angle at every point of a 19x19 grid, cos_t / sin_t[table][pair][y *
 * 19 + x] for q_dim / 2 pairs, computed in double: what the cpu and cuda backends turn by (a
 * smaller tensor reads the points it has, by their (y, x)). */
#define NN_KATA_ROPE_SIDE 19
int nn_kata_rope_tables(const nn_kata_attention *a);
void nn_kata_rope_fill(const nn_kata_attention *a, float *cos_t, float *sin_t);

/* The feed-forward block (SwiGLU: the loader takes no other). */
typedef struct nn_kata_ffn {
    int c, ffn_c;
    bool swiglu;
    nn_kata_rms_norm norm;
    nn_matmul_desc linear1, gate, linear2;  /* c -> ffn_c, c -> ffn_c (swiglu), ffn_c -> c */
} nn_kata_ffn;

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
    /* NN_KATA_BLOCK_ATTENTION and NN_KATA_BLOCK_FFN (the fields above stay empty) */
    nn_kata_attention attn;
    nn_kata_ffn ffn;
} nn_kata_block;

typedef struct nn_kata_trunk {
    char name[NN_NAME_LEN];
    int num_blocks;
    int trunk_channels, mid_channels, regular_channels, gpool_channels;  /* as the file says */
    nn_conv_desc initial_conv;          /* spatial inputs -> trunk channels */
    nn_matmul_desc initial_matmul;      /* global inputs -> trunk channels */
    nn_kata_block *blocks;              /* [num_blocks] */
    int norm_kind;                      /* 0: tip_bn, 1: tip_rms (version 15 on) */
    nn_bn_desc tip_bn;
    nn_kata_tip_rms tip_rms;
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
    int out_channels;                   /* 1; 2 from version 12 (optimistic policy); 4 in
                                           version 16 and 2 or 4 in 17 (q values) */
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
    bool prefer_pass_alive_suicide;     /* version 15 on: the net asks for pass-alive features
                                           as if suicide were legal (KataGo's handshake; shido's
                                           inputs follow the game's rules regardless) */
    nn_kata_meta_encoder meta;
    nn_kata_trunk trunk;
    nn_kata_policy_head policy;
    nn_kata_value_head value;
};

#endif
