/* nn/ref/kata_forward.h -- the reference forward pass of a KataGo network on one position, with
 * KataGo's post-processing for the model version: exactly the quantities GTP kata-raw-nn prints.
 *
 * Post-processing (KataGo's NNEvaluator, white's view, s the post-processing multipliers):
 *   policy       logits + (optimistic logits - logits) * optimism where the net has the
 *                optimistic channel (version 12 on), softmax over the LEGAL moves and pass
 *   win/loss     softmax of the 3 value logits; under superko and area scoring the no-result
 *                logit is pushed down by 1e5 and its probability set to 0
 *   scores       version 4 on: mean = x0 * s.score_mean, stdev = softplus(x1) * s.score_stdev,
 *                sq = mean^2 + stdev^2, lead = (version 8 on: x2, else x0) * s.lead, each
 *                times (1 - noResult); var_time_left = softplus(x3) * s.variance_time (v8 on);
 *                shortterm errors: v14 on sqrt(softplus(x/2)^2 * multiplier), v10..13
 *                sqrt(softplus(x) * multiplier), v9 softplus(x4) and 10 * softplus(x5)
 *                version 3: the one score value is atan-squashed and mapped back to points
 *                (its unit: 2 sqrt(width * height) points)
 *   ownership    tanh, negated when black is to move
 * Values the model version lacks are -1 (var_time_left and shortterm errors before version 9).
 */
#ifndef SHIDO_NN_REF_KATA_FORWARD_H
#define SHIDO_NN_REF_KATA_FORWARD_H

#include <stdbool.h>

#include "go/game.h"
#include "weights/desc.h"
#include "weights/desc_kata.h"
#include "nn/kata_inputs.h"

/* The per-layer compute behind both single-position forward passes (KataGo here, Leela Zero in
 * lz_forward.c): nn_ref_ops gives the reference (the "ref" backend of nn/backend.h runs it), and
 * a per-layer experiment (bench/) can reuse the orchestration with its own table. The batched
 * backends (nn/cpu) replace whole forward passes instead. Each op has the contract of its
 * nn_ref_* twin in ref_ops.h: NCHW, h x w planes, outputs never alias inputs, nothing returned;
 * an op that cannot get scratch memory aborts. */
typedef struct nn_ops {
    const char *name;
    void (*conv)(const nn_conv_desc *c, int h, int w, const float *x, float *y);
    void (*bn_act)(const nn_bn_desc *b, nn_activation act, int h, int w, const float *mask,
                   float *x);
    void (*matmul)(const nn_matmul_desc *m, const float *x, float *y);
} nn_ops;

/* nn_ref_conv, nn_ref_bn_act, nn_ref_matmul */
extern const nn_ops nn_ref_ops;

/* kata-raw-nn's default root policy optimism */
#define NN_KATA_DEFAULT_OPTIMISM 0.2

typedef struct nn_kata_output {
    int size, width, height;                    /* the board's, as go_board's */
    double white_win, white_loss, no_result;
    double white_lead, white_score_selfplay, white_score_selfplay_sq;
    double var_time_left, shortterm_winloss_error, shortterm_score_error;
    float policy[NN_KATA_MAX_POINTS];           /* [y * width + x], y = 0 the top row; NAN
                                                   where the move is illegal */
    float policy_pass;
    float white_ownership[NN_KATA_MAX_POINTS];  /* [y * width + x], +1 white, -1 black */
} nn_kata_output;

/* Evaluates d (a KataGo description) on g for the side to move, with KataGo's symmetry 0..7
 * and policy optimism (NN_KATA_DEFAULT_OPTIMISM as kata-raw-nn; ignored by nets without the
 * optimistic channel), without metadata (a human SL net's encoder is left out; nn_eval feeds
 * it a profile). The rules the model version understands are used (see
 * nn_kata_supported_rules). Fills out; returns false with a message in err on a bad argument,
 * rules the inputs cannot express, or out of memory. */
bool nn_kata_ref_eval(const nn_desc *d, const go_game *g, int symmetry, double policy_optimism,
                      nn_kata_output *out, char *err, int err_len);

/* nn_kata_ref_eval with the layers computed by ops (nn_ref_ops gives nn_kata_ref_eval). */
bool nn_kata_eval_ops(const nn_ops *ops, const nn_desc *d, const go_game *g, int symmetry,
                      double policy_optimism, nn_kata_output *out, char *err, int err_len);

/* The three steps of an evaluation, for the batched evaluator of nn/nn.c:
 *   nn_kata_eval_inputs   position -> input planes in the net's orientation
 *   nn_kata_forward_ops   planes -> raw head outputs (nn_kata_raw), one position, any nn_ops
 *   nn_kata_post_outputs  raw outputs -> KataGo's reported values in the board's orientation */

/* Raw head outputs of one position on the net's tensor (the board's width x height, or
 * height x width under a transposing symmetry), in the net's orientation and the side to move's
 * view; area = width * height. The arrays belong to the caller. */
typedef struct nn_kata_raw {
    float *policy;      /* [out_channels][area] logits */
    float *pass;        /* [out_channels] logits */
    float *value;       /* [3] win, loss, no-result logits */
    float *score;       /* [score_channels] */
    float *ownership;   /* [area], before tanh */
} nn_kata_raw;

/* Checks d, symmetry and optimism, then writes the inputs of g's side to move under the rules
 * the model version understands: spatial[num_spatial][area] with the symmetry applied (on a
 * height x width tensor of a width x height board when the symmetry transposes, as
 * nn_kata_symmetry_apply), global[num_global]. scratch is working memory. Returns false with
 * a message in err. */
bool nn_kata_eval_inputs(const nn_desc *d, const go_game *g, int symmetry,
                         double policy_optimism, nn_kata_inputs *scratch, float *spatial,
                         float *global, char *err, int err_len);

/* One forward pass of k on a tensor of height rows of width points (the net's orientation)
 * with the layers of ops; fills raw. meta: NULL,
 * or the k->meta.num_inputs features of nn_kata_profile_features for a net with a metadata
 * encoder, whose output is then added to the trunk per channel beside the global inputs' (no
 * meta: that bias is left out). Returns false only when out of memory for the activations. */
bool nn_kata_forward_ops(const nn_ops *ops, const nn_kata_desc *k, int width, int height,
                         const float *spatial, const float *global, const float *meta,
                         const nn_kata_raw *raw);

/* KataGo's post-processing (top of this file) of raw outputs of g under symmetry into out. */
void nn_kata_post_outputs(const nn_kata_desc *k, const go_game *g, int symmetry,
                         double policy_optimism, const nn_kata_raw *raw, nn_kata_output *out);

#endif
