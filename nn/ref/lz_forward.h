/* nn/ref/lz_forward.h -- the reference forward pass of a Leela Zero network (weights/desc_lz.h), built
 * from the plain-loop layers of ref_ops.h with double accumulation (or, through the *_ops
 * variants, from any nn_ops table). Every faster Leela Zero path
 * is tested against it; it is checked itself against Leela Zero 0.17's own outputs
 * (../shared/vectors/lz-*.jsonl). */
#ifndef SHIDO_NN_REF_LZ_FORWARD_H
#define SHIDO_NN_REF_LZ_FORWARD_H

#include <stdbool.h>

#include "go/game.h"
#include "weights/desc.h"
#include "weights/desc_lz.h"
#include "nn/ref/kata_forward.h"  /* nn_ops, nn_ref_ops */

/* One forward pass on planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS] (nn_lz_inputs). Writes
 * net_policy[NN_LZ_POLICY_OUTPUTS], the softmax over all 362 outputs in the net's order (pass
 * last), and *head_winrate = (1 + tanh(value)) / 2 in the value head's own perspective (black's for
 * version 2 nets). Returns false only when out of memory for the activations. */
bool nn_lz_ref_forward(const struct nn_lz_desc *lz, const float *planes, float *net_policy,
                       float *head_winrate);

/* Evaluates the position g under symmetry 0..7 (Leela Zero's numbering) as Leela Zero 0.17's
 * `heatmap SYM` does: policy[362] gets the raw softmax over every point (occupied ones included),
 * row-major with the top row first, then pass; *winrate is the side to move's. Returns false with
 * a message (naming the network file) for a description that is not Leela Zero's, a board other
 * than 19x19, a symmetry out of range, or no memory. */
bool nn_lz_ref_eval(const nn_desc *d, const go_game *g, int symmetry, float *policy,
                    float *winrate, char *err, int err_len);

/* nn_lz_ref_forward / nn_lz_ref_eval with the layers computed by ops (nn_ref_ops gives the
 * reference). Messages name the eval "nn_lz_<ops name>_eval". */
bool nn_lz_forward_ops(const nn_ops *ops, const struct nn_lz_desc *lz, const float *planes,
                       float *net_policy, float *head_winrate);
bool nn_lz_eval_ops(const nn_ops *ops, const nn_desc *d, const go_game *g, int symmetry,
                    float *policy, float *winrate, char *err, int err_len);

/* The forward pass split for the batched evaluator of nn/nn.c: the raw head outputs (policy
 * logits[NN_LZ_POLICY_OUTPUTS] in net order and the value before tanh; false only when out of
 * memory), then Leela Zero's post-processing of them into net_policy and *head_winrate. */
bool nn_lz_forward_raw_ops(const nn_ops *ops, const struct nn_lz_desc *lz, const float *planes,
                           float *logits, float *value);
void nn_lz_postprocess(const float *logits, float value, float *net_policy, float *head_winrate);

#endif
