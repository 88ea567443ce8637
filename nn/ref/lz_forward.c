/* nn/ref/lz_forward.c -- reference Leela Zero forward pass (see lz_forward.h). */
#include "nn/ref/lz_forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nn/lz_inputs.h"
#include "nn/ref/ref_ops.h"

#define LZ_SIDE NN_LZ_BOARD_SIZE

/* x = relu(x + skip), the end of a residual block; summed in double like the layers. */
static void lz_add_relu(float *x, const float *skip, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = (double)x[i] + skip[i];
        x[i] = v > 0 ? (float)v : 0.0f;
    }
}

static void lz_relu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0.0f;
}

bool nn_lz_ref_forward(const struct nn_lz_desc *lz, const float *planes, float *net_policy,
                       float *head_winrate)
{
    return nn_lz_forward_ops(&nn_ref_ops, lz, planes, net_policy, head_winrate);
}

bool nn_lz_forward_ops(const nn_ops *ops, const struct nn_lz_desc *lz, const float *planes,
                       float *net_policy, float *head_winrate)
{
    float logits[NN_LZ_POLICY_OUTPUTS], value;
    if (!nn_lz_forward_raw_ops(ops, lz, planes, logits, &value))
        return false;
    nn_lz_postprocess(logits, value, net_policy, head_winrate);
    return true;
}

bool nn_lz_forward_raw_ops(const nn_ops *ops, const struct nn_lz_desc *lz, const float *planes,
                           float *logits, float *value)
{
    size_t trunk = (size_t)lz->filters * NN_LZ_POINTS;
    size_t heads = (size_t)NN_LZ_POLICY_CHANNELS * NN_LZ_POINTS +
                   (size_t)NN_LZ_VALUE_CHANNELS * NN_LZ_POINTS + NN_LZ_VALUE_HIDDEN;
    float *mem = malloc(sizeof *mem * (3 * trunk + heads));
    if (!mem)
        return false;
    float *x = mem, *t = x + trunk, *y = t + trunk;
    float *pol = y + trunk;
    float *val = pol + (size_t)NN_LZ_POLICY_CHANNELS * NN_LZ_POINTS;
    float *hidden = val + (size_t)NN_LZ_VALUE_CHANNELS * NN_LZ_POINTS;

    ops->conv(&lz->input_conv, LZ_SIDE, LZ_SIDE, planes, x);
    ops->bn_act(&lz->input_bn, NN_ACT_RELU, LZ_SIDE, LZ_SIDE, NULL, x);
    for (int b = 0; b < lz->blocks; b++) {
        const nn_lz_block *blk = &lz->block[b];
        ops->conv(&blk->conv1, LZ_SIDE, LZ_SIDE, x, t);
        ops->bn_act(&blk->bn1, NN_ACT_RELU, LZ_SIDE, LZ_SIDE, NULL, t);
        ops->conv(&blk->conv2, LZ_SIDE, LZ_SIDE, t, y);
        ops->bn_act(&blk->bn2, NN_ACT_IDENTITY, LZ_SIDE, LZ_SIDE, NULL, y);
        lz_add_relu(y, x, trunk);
        float *swap = x;
        x = y;
        y = swap;
    }

    ops->conv(&lz->policy_conv, LZ_SIDE, LZ_SIDE, x, pol);
    ops->bn_act(&lz->policy_bn, NN_ACT_RELU, LZ_SIDE, LZ_SIDE, NULL, pol);
    ops->matmul(&lz->policy_fc, pol, logits);
    ops->conv(&lz->value_conv, LZ_SIDE, LZ_SIDE, x, val);
    ops->bn_act(&lz->value_bn, NN_ACT_RELU, LZ_SIDE, LZ_SIDE, NULL, val);
    ops->matmul(&lz->value_fc1, val, hidden);
    lz_relu(hidden, NN_LZ_VALUE_HIDDEN);
    ops->matmul(&lz->value_fc2, hidden, value);
    free(mem);
    return true;
}

void nn_lz_postprocess(const float *logits, float value, float *net_policy, float *head_winrate)
{
    /* Softmax over all 362 outputs (Leela Zero masks nothing here; legality is the search's). */
    double top = logits[0], sum = 0;
    for (int i = 1; i < NN_LZ_POLICY_OUTPUTS; i++)
        top = logits[i] > top ? logits[i] : top;
    double e[NN_LZ_POLICY_OUTPUTS];
    for (int i = 0; i < NN_LZ_POLICY_OUTPUTS; i++)
        sum += e[i] = exp((double)logits[i] - top);
    for (int i = 0; i < NN_LZ_POLICY_OUTPUTS; i++)
        net_policy[i] = (float)(e[i] / sum);
    *head_winrate = (float)((1.0 + tanh((double)value)) / 2.0);
}

bool nn_lz_ref_eval(const nn_desc *d, const go_game *g, int symmetry, float *policy,
                    float *winrate, char *err, int err_len)
{
    return nn_lz_eval_ops(&nn_ref_ops, d, g, symmetry, policy, winrate, err, err_len);
}

bool nn_lz_eval_ops(const nn_ops *ops, const nn_desc *d, const go_game *g, int symmetry,
                    float *policy, float *winrate, char *err, int err_len)
{
    const char *src = d ? d->source : "(no network)";
    const char *why = NULL;
    char size_why[96];
    if (!d || d->family != NN_FAMILY_LZ || !d->lz)
        why = "not a Leela Zero network";
    else if (!g || !policy || !winrate)
        why = "no position or no room for the outputs";
    else if (g->board.width != NN_LZ_BOARD_SIZE || g->board.height != NN_LZ_BOARD_SIZE) {
        snprintf(size_why, sizeof size_why,
                 "the board is %dx%d; Leela Zero networks only play on 19x19", g->board.width,
                 g->board.height);
        why = size_why;
    } else if (symmetry < 0 || symmetry >= NN_LZ_SYMMETRIES)
        why = "symmetry out of range (expected 0 to 7)";
    float *planes = NULL;
    if (!why) {
        planes = malloc(sizeof *planes * NN_LZ_INPUT_PLANES * NN_LZ_POINTS);
        float net_policy[NN_LZ_POLICY_OUTPUTS], head_winrate = 0;
        if (!planes || !nn_lz_inputs(g, symmetry, planes) ||
            !nn_lz_forward_ops(ops, d->lz, planes, net_policy, &head_winrate)) {
            why = "out of memory for the activations";
        } else {
            nn_lz_policy_to_board(symmetry, net_policy, policy);
            *winrate = nn_lz_winrate_to_move(d->lz, g->board.to_move, head_winrate);
        }
    }
    free(planes);
    if (why && err && err_len > 0)
        snprintf(err, (size_t)err_len, "nn_lz_%s_eval: %s: %s", ops->name, src,
                 why);
    return !why;
}
